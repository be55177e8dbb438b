import type { KubeObject } from '../../../kube-types/kube-object.js';
import { SimKubeError, type SimKubeStoreImpl } from '../kube-store.js';
import { randomSuffix } from '../objects/kube-names.js';

/** Names a controller tries before it gives a pod up until its next pass. */
const NAME_ATTEMPTS = 7;

/**
 * When a controller's next pass comes after it gave a pod up: the ReplicaSet, Deployment and DaemonSet controllers
 * requeue the object whose pod they could not create, with a backoff (client-go's workqueue rate limiter, 5 ms
 * doubling), so a stalled create is tried again without waiting for another change to the cluster. One simulated
 * second here, for every retry.
 */
export const RETRY_CREATE_AFTER_MS = 1_000;

/**
 * Creates a pod named as the workload controllers name theirs: `<owner>-<5 random characters>`. A name already taken
 * is answered 409 AlreadyExists by an apiserver before 1.31 (KEP-4420, RetryGenerateName: 1.31 and later try up to 7
 * names themselves, https://www.kubernetes.dev/resources/keps/4420/); the ReplicaSet, Deployment and DaemonSet
 * controllers then record a FailedCreate Warning ("Error creating: pods \"…\" already exists") and try again with
 * another name at their next sync, a few milliseconds later; here, at once. With thousands of replacements under one ReplicaSet's prefix, such a collision comes about in
 * most 500-node rehearsals. Returns the name, or undefined when every name tried was taken (the next pass tries again).
 */
export function createNamedPod(
  store: SimKubeStoreImpl,
  owner: string,
  build: (name: string) => KubeObject,
  failed: (message: string) => void,
): string | undefined {
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    const name = `${owner}-${randomSuffix(store.random)}`;
    try {
      store.create('pods', build(name));
      return name;
    } catch (error) {
      if (!(error instanceof SimKubeError) || error.code !== 409) throw error;
      failed(`Error creating: pods "${name}" already exists`);
    }
  }
  return undefined;
}
