import type { KubeObject } from '../../ports/kube-port.js';

/**
 * The container images running in the cluster, before and after the upgrade — the workshop's `1.25.txt` /
 * `1.26.txt` diff, which shows what the add-on and node updates changed (kube-proxy, coredns, CNI images).
 * Pure. Kept small enough for job.data: unique images, capped.
 */
export const MAX_IMAGES = 300;

export function imageInventory(pods: KubeObject[]): string[] {
  const images = new Set<string>();
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
      if (typeof container?.image === 'string') images.add(container.image);
    }
  }
  return [...images].sort().slice(0, MAX_IMAGES);
}

export function diffImages(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const was = new Set(before);
  const now = new Set(after);
  return { added: after.filter((image) => !was.has(image)), removed: before.filter((image) => !now.has(image)) };
}

export function describeImageDiff(diff: { added: string[]; removed: string[] }): string[] {
  if (diff.added.length === 0 && diff.removed.length === 0) return ['Container images: unchanged.'];
  return [
    `Container images before → after: ${diff.removed.length} gone, ${diff.added.length} new.`,
    ...diff.removed.slice(0, 30).map((image) => `- ${image}`),
    ...diff.added.slice(0, 30).map((image) => `+ ${image}`),
  ];
}
