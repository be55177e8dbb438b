/**
 * The shape of a Kubernetes object as the apiserver returns it: the one type the product and the simulator share.
 * It lives in its own module, below both, so the simulator (a package of its own, entry points in src/sim/) need not
 * import product code; the simulator keeps its own selectors, readiness and budgets, since a test oracle must not
 * share the product's bugs.
 */

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    ownerReferences?: Array<{ kind: string; name: string; uid?: string; controller?: boolean }>;
    deletionTimestamp?: string;
    [key: string]: unknown;
  };
  spec?: any;
  status?: any;
  [key: string]: unknown;
}
