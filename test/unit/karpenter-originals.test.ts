import { describe, expect, it } from 'vitest';
import { recordedKarpenterOriginals } from '../../src/planning/karpenter-originals.js';
import { termsMatch } from '../../src/planning/deciders/decide-ami-action.js';
import { JOB_DATA_SCHEMA, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';

/** What a rollback reads from the upgrade it undoes: the EC2NodeClass terms its Karpenter step saved before patching. */
function job(over: Partial<UpgradeJobData> & { jobId: string; classes?: Record<string, unknown>; to?: string }): UpgradeJobData {
  const to = over.to ?? '1.31';
  return {
    schema: JOB_DATA_SCHEMA, cluster: 'lab', region: 'us-west-2', from: '1.30', to, hops: [to], requestedBy: 'U1', channel: 'C1',
    thread: { channel: 'C1', ts: '1' }, dryRun: false, startedAt: 1_000, state: 'succeeded', stepIndex: 3, stepRuns: {}, updates: {},
    retries: {}, pauseSeq: 0, acted: {},
    steps: [{ id: 'h1-karpenter', kind: 'karpenter', hop: 1, from: '1.30', to, title: 'Karpenter nodes' }],
    stepState: over.classes ? { 'h1-karpenter': { startedAt: 1, pools: {}, classes: over.classes } } : {},
    ...over,
  } as UpgradeJobData;
}

const pinned = { action: 'pin', family: 'AL2023', oldTerms: [{ ssmParameter: '/aws/service/eks/optimized-ami/1.30/x' }], newTerms: [{ id: 'ami-131' }], patched: true };
const alias = { action: 'follows-version', family: 'AL2023', oldTerms: [{ alias: 'al2023@latest' }] };

describe('recordedKarpenterOriginals', () => {
  it('reads the terms the latest successful upgrade to the version recorded, per class', () => {
    const found = recordedKarpenterOriginals(
      [job({ jobId: 'old', startedAt: 1, finishedAt: 2, classes: { a: { ...pinned, oldTerms: [{ id: 'ami-old' }] } } }), job({ jobId: 'new', startedAt: 5, finishedAt: 6, classes: { a: pinned, b: alias } })],
      'lab', '1.31',
    );
    expect(found).toEqual({ jobId: 'new', version: '1.31', classes: { a: { terms: pinned.oldTerms }, b: { terms: alias.oldTerms } } });
  });

  it('prefers the job the Roll back button came from', () => {
    const jobs = [job({ jobId: 'button', startedAt: 1, finishedAt: 2, classes: { a: pinned } }), job({ jobId: 'later', startedAt: 5, finishedAt: 6, classes: { a: alias } })];
    expect(recordedKarpenterOriginals(jobs, 'lab', '1.31', 'button')?.jobId).toBe('button');
  });

  it('ignores failed, dry-run, rollback and other-cluster or other-version jobs, and answers undefined when nothing was recorded', () => {
    const jobs = [
      job({ jobId: 'failed', state: 'failed', classes: { a: pinned } }),
      job({ jobId: 'dry', dryRun: true, classes: { a: pinned } }),
      job({ jobId: 'rb', rollback: { timeoutMinutes: 720 }, classes: { a: pinned } }),
      job({ jobId: 'other', cluster: 'demo', classes: { a: pinned } }),
      job({ jobId: 'v32', to: '1.32', classes: { a: pinned } }),
      job({ jobId: 'none' }),
    ];
    expect(recordedKarpenterOriginals(jobs, 'lab', '1.31')).toBeUndefined();
  });
});

describe('termsMatch', () => {
  it('compares ids as a set and other terms exactly', () => {
    expect(termsMatch([{ id: 'b' }, { id: 'a' }], [{ id: 'a' }, { id: 'b' }])).toBe(true);
    expect(termsMatch([{ id: 'a' }], [{ ssmParameter: '/p' }])).toBe(false);
    expect(termsMatch([{ alias: 'al2023@latest' }], [{ alias: 'al2023@latest' }])).toBe(true);
    expect(termsMatch([{ tags: { b: '2', a: '1' } }], [{ tags: { a: '1', b: '2' } }])).toBe(true);
  });
});
