import type { RecordedKarpenterClasses, UpgradeJobData } from './upgrade-job-data.js';

export type { RecordedKarpenterClasses };

/**
 * What an upgrade job's Karpenter step recorded about each EC2NodeClass before it changed anything (its step state
 * in job.data, `classes[<name>].oldTerms`, saved before the first patch), so a rollback (issue 10) can put each
 * class back exactly as it was. Pure.
 */

function recordedIn(data: UpgradeJobData, version: string): RecordedKarpenterClasses['classes'] {
  const classes: RecordedKarpenterClasses['classes'] = {};
  for (const step of data.steps) {
    if (step.kind !== 'karpenter' || step.to !== version) continue;
    const saved = data.stepState[step.id]?.classes;
    if (!saved || typeof saved !== 'object') continue;
    for (const [name, value] of Object.entries(saved as Record<string, unknown>)) {
      const terms = (value as { oldTerms?: unknown })?.oldTerms;
      if (Array.isArray(terms) && terms.length > 0 && terms.every((term) => term && typeof term === 'object')) {
        classes[name] = { terms: structuredClone(terms) as Array<Record<string, unknown>> };
      }
    }
  }
  return classes;
}

/**
 * The originals recorded by the upgrade of `cluster` to `version` that the rollback undoes: the job the Roll back
 * button came from when given (also when it ended aborted: the breach card's Roll back), else the latest successful (not dry-run, not rollback) job of the cluster that ended
 * at `version`. Undefined when no such job recorded a class (the rollback then uses the N-1 AMI from SSM).
 */
export function recordedKarpenterOriginals(jobs: UpgradeJobData[], cluster: string, version: string, preferJob?: string): RecordedKarpenterClasses | undefined {
  const candidates = jobs
    // The job a Roll back came from counts although it did not succeed: the breach card's Roll back aborts it first (issue 29).
    .filter((job) => job.cluster === cluster && (job.state === 'succeeded' || (job.jobId === preferJob && job.state === 'aborted')) && !job.dryRun && !job.rollback && job.to === version)
    .sort((a, b) => (a.jobId === preferJob ? -1 : b.jobId === preferJob ? 1 : (b.finishedAt ?? b.startedAt) - (a.finishedAt ?? a.startedAt)));
  for (const job of candidates) {
    const classes = recordedIn(job, version);
    if (Object.keys(classes).length > 0) return { jobId: job.jobId, version, classes };
  }
  return undefined;
}
