import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { readJobData } from '../../jobs/worker/job-data-schema.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { redisUrl } from '../support/redis-url.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * Jobs survive a deploy. test/fixtures/job-data-schema-1.json is a job as the previous worker version wrote it
 * (schema 1: every step kind, no plan, no `acted`), stopped mid-upgrade: preflight and the gate done, its
 * UpdateClusterVersion issued and recorded, the worker gone. A worker of this version picks it up from the queue,
 * follows that update without issuing another, and runs the rest. A job of a schema this worker does not know is
 * left alone, with a sentence in its thread.
 */
let h: EngineHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function oldJob(jobId: string, updateId: string, fixture = 'job-data-schema-1.json'): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/${fixture}`, import.meta.url), 'utf8').replace('JOB_ID', jobId).replace('UPDATE_ID', updateId));
}

describe('job data written by another worker version', () => {
  it('a schema 1 job, picked up mid-upgrade by this worker, follows the recorded update and completes', async () => {
    h = await startEngineHarness({ scenario: 'demo' });
    // The old worker issued the control-plane update, recorded it, and died.
    const update = await h.sources.eks({ region: 'us-west-2' }).updateClusterVersion('demo', '1.31', 'old-worker-token');
    const queue = new Queue<UpgradeJobData>(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
    await queue.add('upgrade', oldJob('uold0001', update.id!) as UpgradeJobData, { jobId: 'uold0001' });
    await queue.close();

    const engine = h.engine();
    await engine.startWorker();
    const ended = await waitForJobState(engine, 'uold0001', ['succeeded', 'failed', 'aborted'], 60_000);
    expect(h.thread.events('step-failed')).toEqual([]);
    expect(ended.state).toBe('succeeded');
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);
    const cluster = h.sim.world.cluster('demo')!;
    expect(cluster.version).toBe('1.31');
    expect([...cluster.nodegroups.values()].map((ng) => ng.version)).toEqual(['1.31']);
    // Without a plan, each step decided from the world, as the old worker would have.
    const finished = h.thread.events('step-finished').map((e) => (e.kind === 'step-finished' ? e.step : ''));
    expect(finished).toEqual(expect.arrayContaining(['h1-control-plane', 'h1-addons', 'h1-managed-nodegroups', 'h1-verify']));
  });

  it('a schema 2 job of the shape before the one planner (plan actions without alias, pools or AMI ids), picked up mid-upgrade, runs its planned actions', async () => {
    // test/fixtures/job-data-schema-2.json: the steps and actions jobSteps wrote from the demo plan before the planner
    // took a direction and its actions gained structured fields; stopped after its UpdateClusterVersion was recorded.
    h = await startEngineHarness({ scenario: 'demo' });
    const update = await h.sources.eks({ region: 'us-west-2' }).updateClusterVersion('demo', '1.31', 'old-worker-token');
    const data = oldJob('uold0003', update.id!, 'job-data-schema-2.json') as UpgradeJobData;
    const reading = readJobData(data);
    expect(reading.ok && [reading.data.schema, reading.upgradedFrom]).toEqual([2, undefined]);
    const queue = new Queue<UpgradeJobData>(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
    await queue.add('upgrade', data, { jobId: 'uold0003' });
    await queue.close();

    const engine = h.engine();
    await engine.startWorker();
    const { job, gates } = await answerGatesUntilEnded(engine, h.thread, 'uold0003', () => ({ action: 'continue' }));
    expect(h.thread.events('step-failed')).toEqual([]);
    expect(job.state).toBe('succeeded');
    // The recorded update was followed, not issued again; the node group's planned gate was asked, as planned.
    expect(h.calls('UpdateClusterVersion')).toHaveLength(1);
    expect(gates.map((gate) => gate.title)).toEqual([expect.stringContaining('demo-ng')]);
    const cluster = h.sim.world.cluster('demo')!;
    expect(cluster.version).toBe('1.31');
    expect([...cluster.nodegroups.values()].map((ng) => ng.version)).toEqual(['1.31']);
    // Every action the stored plan named was done, to the version it named.
    const planned = data.steps.flatMap((step) => (step.actions ?? []).filter((action) => action.action !== 'update-control-plane').map((action) => `${action.resource} ${action.to}`));
    const reader = new Queue<UpgradeJobData>(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
    const stored = (await reader.getJob('uold0003'))!;
    await reader.close();
    const acted = Object.values(stored.data.acted).flatMap((byResource) => Object.values(byResource)).map((action) => `${action.resource} ${action.to}`);
    expect(acted).toEqual(expect.arrayContaining(planned));
  });

  it('leaves a job of an unknown (newer) schema alone, with a sentence in its thread, and changes nothing', async () => {
    h = await startEngineHarness({ scenario: 'demo' });
    const queue = new Queue<UpgradeJobData>(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
    await queue.add('upgrade', { ...(oldJob('unew0001', 'none') as object), schema: 3 } as unknown as UpgradeJobData, { jobId: 'unew0001' });
    const engine = h.engine();
    await engine.startWorker();
    const note = await until(() => h!.thread.events('note').find((e) => e.kind === 'note' && e.text.startsWith('A worker of another version picked this job up')), 'the refusal in the thread');
    expect(note?.kind === 'note' && note.text).toMatch(/this job's data has schema 3, which this worker \(schema 2\) cannot read; it leaves the cluster as it is/);
    // Handed back to the queue for a worker of the right version; nothing was called, nothing was finished.
    expect(await (await queue.getJob('unew0001'))!.getState()).toBe('delayed');
    expect(h.sim.world.calls).toEqual([]);
    expect(h.thread.events('summary')).toEqual([]);
    await queue.close();
    const upgraded = readJobData(oldJob('uold0002', 'x'));
    expect(upgraded.ok && [upgraded.data.schema, upgraded.data.acted, upgraded.upgradedFrom]).toEqual([2, {}, 1]);
  });
});
