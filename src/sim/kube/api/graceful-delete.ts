import type { KubeObject } from '../../../kube-types/kube-object.js';
import { isoSeconds } from '../iso-seconds.js';
import type { SimKubeStoreImpl } from '../kube-store.js';

/**
 * Pod deletion as the apiserver and kubelet do it: a pod running on a node gets deletionTimestamp (kubectl shows
 * Terminating) and a Killing event, its containers stop within a short shutdown, then it is gone. Pods not on a
 * node, finished pods, grace 0 and every other kind are deleted at once.
 */
/** How long a pod takes to stop once deleted gracefully (its containers exit well within the grace period). */
export const POD_SHUTDOWN_MS = 2000;

export function deleteGracefully(
  store: SimKubeStoreImpl,
  resource: string,
  name: string,
  namespace: string | undefined,
  gracePeriodSeconds?: number,
): KubeObject | undefined {
  const existing = store.get(resource, name, namespace);
  if (!existing) return undefined;
  const grace = gracePeriodSeconds ?? existing.spec?.terminationGracePeriodSeconds ?? 30;
  const phase = existing.status?.phase;
  if (resource !== 'pods' || !existing.spec?.nodeName || grace <= 0 || phase === 'Succeeded' || phase === 'Failed') {
    return store.delete(resource, name, namespace);
  }
  if (existing.metadata.deletionTimestamp) return existing;
  const terminating = store.mutate(resource, name, namespace, (pod) => {
    pod.metadata.deletionTimestamp = isoSeconds(store.clock.now() + grace * 1000);
    pod.metadata.deletionGracePeriodSeconds = grace;
  });
  for (const container of existing.spec?.containers ?? []) {
    store.recordEvent({
      namespace,
      involvedObject: { kind: 'Pod', name, namespace, uid: existing.metadata.uid, fieldPath: `spec.containers{${container.name}}` } as any,
      reason: 'Killing',
      message: `Stopping container ${container.name}`,
      component: 'kubelet',
    });
  }
  store.clock.after(Math.min(POD_SHUTDOWN_MS, grace * 1000), () => {
    const still = store.get(resource, name, namespace);
    if (still && still.metadata.uid === existing.metadata.uid) store.delete(resource, name, namespace);
  });
  return terminating;
}
