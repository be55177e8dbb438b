import type { SimWorld } from './aws/world-types.js';
import { FAILS_READINESS_ANNOTATION } from './kube/controllers/readiness-failures.js';

/**
 * POST /_sim/workloads/fail {cluster?, namespace, name, onVersion: "1.31"}: from now on the Deployment's pods fail
 * readiness on every node whose kubelet runs that minor (managed, self-managed, Karpenter or Fargate), as a workload
 * broken by the new version would — those already there turn NotReady, new ones never turn Ready — and its available
 * replicas, its Service's endpoints and its PDB's disruptionsAllowed follow (kube/readiness-failures.ts).
 * DELETE with the same body clears it; the pods turn Ready again on the kubelet's next pass.
 */
const MINOR = /^\d+\.\d+$/;

/** sim-control.ts's ControlResult (kept structural here so the two files do not import each other). */
interface ControlResult {
  status: number;
  body: unknown;
}

export function handleWorkloadFail(world: SimWorld, method: 'POST' | 'DELETE', body: unknown): ControlResult {
  const bad = (message: string): ControlResult => ({ status: 400, body: { message } });
  const clearing = method === 'DELETE';
  const shape = clearing ? '{"cluster"?, "namespace", "name"}' : '{"cluster"?, "namespace", "name", "onVersion": "1.31"}';
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad(`A workload fault needs a JSON object ${shape}.`);
  const { cluster: clusterName, namespace, name, onVersion } = body as Record<string, unknown>;
  const known = [...world.clusters.keys()];
  if (clusterName !== undefined && typeof clusterName !== 'string') return bad(`"cluster" must be a cluster name (one of ${known.join(', ')}), got ${JSON.stringify(clusterName)}.`);
  if (clusterName === undefined && known.length !== 1) return bad(`This scenario has ${known.length} clusters (${known.join(', ')}); say which with "cluster".`);
  const cluster = world.cluster(clusterName ?? known[0]);
  if (!cluster) return { status: 404, body: { message: `No cluster ${clusterName} in this scenario; it has ${known.join(', ')}.` } };
  if (typeof namespace !== 'string' || !namespace) return bad(`A workload fault needs "namespace" (the Deployment's namespace): ${shape}.`);
  if (typeof name !== 'string' || !name) return bad(`A workload fault needs "name" (a Deployment in ${namespace}): ${shape}.`);
  if (!clearing && (typeof onVersion !== 'string' || !MINOR.test(onVersion))) {
    return bad(`"onVersion" must be the Kubernetes minor the pods fail on, like "1.31", got ${JSON.stringify(onVersion)}.`);
  }
  if (!cluster.store.readOne('deployments', name, namespace)) {
    const there = cluster.store.read('deployments', namespace).map((d) => d.metadata.name);
    return { status: 404, body: { message: `No Deployment ${namespace}/${name} in cluster ${cluster.name}${there.length ? `; ${namespace} has ${there.join(', ')}` : ''}.` } };
  }
  cluster.store.mutate('deployments', name, namespace, (d) => {
    const annotations = (d.metadata.annotations ??= {});
    if (clearing) delete annotations[FAILS_READINESS_ANNOTATION];
    else annotations[FAILS_READINESS_ANNOTATION] = onVersion as string;
  });
  world.log({ cluster: cluster.name, component: 'workloads', message: clearing ? `${namespace}/${name} no longer fails readiness` : `${namespace}/${name} fails readiness on kubelet ${onVersion}` });
  return { status: 200, body: { cluster: cluster.name, namespace, name, failsReadinessOn: clearing ? null : onVersion } };
}
