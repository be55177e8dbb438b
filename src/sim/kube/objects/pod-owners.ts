import type { KubeObject } from '../../../kube-types/kube-object.js';
import type { SimKubeStore } from '../kube-store.js';
import type { ControllerScale } from '../controllers/pdb-status.js';

/** The controller owner reference of an object (ownerReferences[].controller == true). */
export function controllerRef(object: KubeObject): { kind: string; name: string; uid?: string } | undefined {
  return (object.metadata.ownerReferences ?? []).find((ref) => ref.controller) ?? undefined;
}

export function ownerReference(owner: KubeObject): any {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * The replicas a pod's controller wants (Deployment through its ReplicaSet, StatefulSet, ReplicaSet), which is
 * what percentage PDBs scale against. Bare pods and DaemonSet pods answer undefined.
 */
export function podControllerScale(store: Pick<SimKubeStore, 'readOne'>, pod: KubeObject): ControllerScale | undefined {
  const ref = controllerRef(pod);
  const namespace = pod.metadata.namespace;
  if (!ref) return undefined;
  if (ref.kind === 'ReplicaSet') {
    const rs = store.readOne('replicasets', ref.name, namespace);
    if (!rs) return undefined;
    const owner = controllerRef(rs);
    if (owner?.kind === 'Deployment') {
      const deployment = store.readOne('deployments', owner.name, namespace);
      if (deployment) return { key: `Deployment/${namespace}/${owner.name}`, replicas: deployment.spec?.replicas ?? 1 };
    }
    return { key: `ReplicaSet/${namespace}/${ref.name}`, replicas: rs.spec?.replicas ?? 1 };
  }
  if (ref.kind === 'StatefulSet') {
    const sts = store.readOne('statefulsets', ref.name, namespace);
    return sts ? { key: `StatefulSet/${namespace}/${ref.name}`, replicas: sts.spec?.replicas ?? 1 } : undefined;
  }
  return undefined;
}
