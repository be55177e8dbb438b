/**
 * Redis key names of the upgrade engine, all under the engine's prefix (tests use a fresh prefix each, so they
 * never see each other's locks or jobs). BullMQ's own keys live under `${prefix}:${UPGRADE_QUEUE}:…`.
 */
export const UPGRADE_QUEUE = 'eks-upgrades';

export interface EngineKeys {
  /** Holds the id of the job that owns the cluster (SET NX), so there is one upgrade per cluster at a time. */
  clusterLock(cluster: string): string;
  /** The start request behind a lock, so a refusal can describe a job that is still being enqueued. */
  startIntent(jobId: string): string;
  /** Hash per gate: the open GateModel, its revision and state, and the first answer. */
  gate(jobId: string, gateId: string): string;
  /** Hash of pause / abort requests for a job. */
  controls(jobId: string): string;
  /** Append-only list of the job's timeline events (JSON), and the set of keys already appended. */
  timeline(jobId: string): string;
  timelineKeys(jobId: string): string;
}

export function engineKeys(prefix: string): EngineKeys {
  const base = `${prefix}:upgrade-engine`;
  return {
    clusterLock: (cluster) => `${base}:lock:${cluster}`,
    startIntent: (jobId) => `${base}:job:${jobId}:intent`,
    gate: (jobId, gateId) => `${base}:job:${jobId}:gate:${gateId}`,
    controls: (jobId) => `${base}:job:${jobId}:controls`,
    timeline: (jobId) => `${base}:job:${jobId}:timeline`,
    timelineKeys: (jobId) => `${base}:job:${jobId}:timeline-keys`,
  };
}
