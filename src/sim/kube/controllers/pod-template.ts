import type { KubeObject } from '../../../kube-types/kube-object.js';
import { cloneJson } from '../objects/deep-equal.js';
import { ownerReference } from '../objects/pod-owners.js';

/** A pod as a workload controller stamps it from its template: template labels and annotations, owner, spec. */
export function podFromTemplate(
  template: any,
  owner: KubeObject,
  name: string,
  extra: { labels?: Record<string, string>; creationTimestamp?: string; spec?: Record<string, unknown> } = {},
): KubeObject {
  const templateMeta = template?.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: { ...(templateMeta.labels ?? {}), ...(extra.labels ?? {}) },
      ...(templateMeta.annotations ? { annotations: cloneJson(templateMeta.annotations) } : {}),
      ownerReferences: [ownerReference(owner)],
      ...(extra.creationTimestamp ? { creationTimestamp: extra.creationTimestamp } : {}),
    },
    spec: { ...cloneJson(template?.spec ?? {}), ...(extra.spec ?? {}) },
  };
}

export function isTerminating(object: KubeObject): boolean {
  return Boolean(object.metadata.deletionTimestamp);
}

export function ownedBy(object: KubeObject, owner: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some(
    (r) => r.controller && r.kind === owner.kind && r.name === owner.metadata.name && (!r.uid || !owner.metadata.uid || r.uid === owner.metadata.uid),
  );
}
