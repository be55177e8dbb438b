import { JOB_DATA_SCHEMA, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';

/**
 * Job data written by another version of the worker. During a rolling deploy two worker versions share one queue,
 * so a job may be picked up by a worker newer or older than the one that wrote it:
 * - schema 1 (before plans were stored): the same step list and step state; it gains `acted` and runs on with no
 *   planned actions, so each step decides from the world alone, as schema 1 workers did;
 * - schema 2: this build's shape;
 * - anything newer: this worker does not know the shape, so it refuses the job without touching the cluster and
 *   leaves it for a worker of the version that wrote it.
 * Pure; the processor calls it before anything else.
 */
export type JobDataReading = { ok: true; data: UpgradeJobData; upgradedFrom?: number } | { ok: false; reason: string };

export function readJobData(raw: unknown): JobDataReading {
  const data = structuredClone(raw) as Record<string, unknown>;
  const schema = typeof data?.schema === 'number' ? data.schema : undefined;
  if (schema === JOB_DATA_SCHEMA) return { ok: true, data: data as unknown as UpgradeJobData };
  if (schema === 1) {
    data.schema = JOB_DATA_SCHEMA;
    data.acted ??= {};
    return { ok: true, data: data as unknown as UpgradeJobData, upgradedFrom: 1 };
  }
  return {
    ok: false,
    reason:
      `this job's data has schema ${schema ?? 'none'}, which this worker (schema ${JOB_DATA_SCHEMA}) cannot read; ` +
      'it leaves the cluster as it is and waits for a worker of the version that started the job (finish the deploy, or roll back to that version)',
  };
}
