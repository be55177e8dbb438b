import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube-store.js';
import { controllerRef } from '../objects/pod-owners.js';

/**
 * A workload that breaks on a kubelet version (POST /_sim/workloads/fail): the Deployment carries this annotation,
 * whose value is the Kubernetes minor ("1.31") its pods fail readiness on. The kubelet controller reads it on every
 * pass, so pods already running on such a node turn NotReady, and pods scheduled onto one never turn Ready — as a
 * real incompatibility with the new version would look (containers running, readiness probe failing).
 */
export const FAILS_READINESS_ANNOTATION = 'sim.eks-upgrade.dev/fails-readiness-on';

/** "v1.31.4-eks-…" → "1.31"; undefined when the node reports no kubelet version. */
export function kubeletMinor(node: KubeObject): string | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(String(node.status?.nodeInfo?.kubeletVersion ?? ''));
  return match ? `${match[1]}.${match[2]}` : undefined;
}

/** For one controller pass: which pods fail readiness on which node. Cheap when no Deployment is marked. */
export function readinessFailureCheck(store: Pick<SimKubeStore, 'read' | 'readOne'>): (pod: KubeObject, node: KubeObject) => boolean {
  const failing = new Map<string, string>(); // namespace/deployment → minor
  for (const d of store.read('deployments')) {
    const minor = d.metadata.annotations?.[FAILS_READINESS_ANNOTATION];
    if (minor) failing.set(`${d.metadata.namespace}/${d.metadata.name}`, minor);
  }
  if (failing.size === 0) return () => false;
  const deploymentOfReplicaSet = new Map<string, string | undefined>();
  return (pod, node) => {
    const ref = controllerRef(pod);
    if (ref?.kind !== 'ReplicaSet') return false;
    const rsKey = `${pod.metadata.namespace}/${ref.name}`;
    if (!deploymentOfReplicaSet.has(rsKey)) {
      const owner = controllerRef(store.readOne('replicasets', ref.name, pod.metadata.namespace) ?? { metadata: {} } as KubeObject);
      deploymentOfReplicaSet.set(rsKey, owner?.kind === 'Deployment' ? `${pod.metadata.namespace}/${owner.name}` : undefined);
    }
    const deployment = deploymentOfReplicaSet.get(rsKey);
    return deployment !== undefined && failing.get(deployment) === kubeletMinor(node);
  };
}
