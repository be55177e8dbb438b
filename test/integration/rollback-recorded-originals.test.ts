import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { JOB_DATA_SCHEMA, type UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import { createQueueKit, type QueueKit } from '../../src/store/queue-kit.js';
import { readRecordedOriginals } from '../../src/store/queue-upgrade-control.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';

/**
 * A rollback reads, from the upgrade job it undoes, the EC2NodeClass terms that job recorded before changing them.
 * The upgrade job posts its summary and releases the cluster's lock before it returns, and BullMQ moves it to the
 * completed jobs only after that: a rollback asked for as soon as the summary shows finds the job still active.
 * Against the real Redis, with the upgrade job held active after its data says succeeded.
 */
const kits: QueueKit[] = [];
const prefixes: string[] = [];
afterEach(async () => {
  for (const kit of kits.splice(0)) await kit.close();
  for (const prefix of prefixes.splice(0)) await deleteKeys(`${prefix}:*`);
});

const recorded = { action: 'pin', family: 'AL2023', oldTerms: [{ ssmParameter: '/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id' }], newTerms: [{ id: 'ami-131' }], patched: true };

function upgradeJob(): UpgradeJobData {
  return {
    schema: JOB_DATA_SCHEMA, jobId: 'u1', cluster: 'lab', region: 'us-west-2', from: '1.30', to: '1.31', hops: ['1.31'], requestedBy: 'U0REQ', channel: 'C0LAB',
    thread: { channel: 'C0LAB', ts: '1.000' }, dryRun: false, startedAt: 1_000, finishedAt: 2_000, state: 'succeeded', stepIndex: 3, stepRuns: {}, updates: {},
    retries: {}, pauseSeq: 0, acted: {},
    steps: [{ id: 'h1-karpenter', kind: 'karpenter', hop: 1, from: '1.30', to: '1.31', title: 'Karpenter nodes' }],
    stepState: { 'h1-karpenter': { startedAt: 1, pools: {}, classes: { 'by-ssm': recorded } } },
  } as unknown as UpgradeJobData;
}

describe('the recorded EC2NodeClass terms a rollback reads', () => {
  it('are found while the upgrade job that recorded them is still finishing (active, its data succeeded)', async () => {
    const prefix = freshPrefix('rb-originals');
    prefixes.push(prefix);
    const kit = createQueueKit({ url: redisUrl }, prefix);
    kits.push(kit);
    let started!: () => void;
    const active = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    // The job's data already says succeeded; it has yet to return (the timeline upload after the summary).
    kit.worker<UpgradeJobData>('upgrade', async () => {
      started();
      await finishing;
    }, { maxRetriesPerRequest: null });
    const queue = kit.queue<UpgradeJobData>('upgrade', { maxRetriesPerRequest: 1 });
    await queue.add('upgrade', upgradeJob(), { jobId: 'u1' });
    await active;
    expect(await queue.getJobState('u1')).toBe('active');
    const found = await readRecordedOriginals(queue, createLogger({ level: 'silent' }), 'lab', '1.31');
    expect(found.karpenter).toEqual({ jobId: 'u1', version: '1.31', classes: { 'by-ssm': { terms: recorded.oldTerms } } });
    finish();
  });
});
