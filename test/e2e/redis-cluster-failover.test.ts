import { Queue } from 'bullmq';
import type { TestContext } from 'vitest';
import { describe, it } from 'vitest';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { bullConnection, keyPrefixFor } from '../../src/store/redis-connection.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import { pollWorld, repeatedCalls } from '../chaos/kill-point.js';
import { startE2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, readStepMessage, repliesOf, statusCard, stepMessagesOf } from '../support/e2e-thread.js';
import { haveRedisClusterTools, startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';

/**
 * Issue 31, end to end on a real Redis Cluster (three masters, three replicas): the bot runs with
 * REDIS_CLUSTER_NODES, every queue and key under the hash-tagged prefix. An upgrade of `demo` is started and
 * approved through the fake Slack; while the control plane is UPDATING, the master that holds the bot's slot is
 * failed over — gracefully (CLUSTER FAILOVER on its replica), or, in the second run, by killing its process, so the
 * replica takes over after the node timeout. The job must complete with each mutating AWS call once, every planned
 * step shown once and finished, one status card, one timeline file, and no reply posted twice.
 */
const CHANNEL = 'C0OPS';
const CLUSTERS = [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'] }];

type Takeover = 'failover' | 'kill';

async function upgradeThroughTakeover(how: Takeover, { expect }: TestContext) {
  const redis: RedisClusterHandle = await startRedisCluster();
  const stack = await startE2eStack({ scenario: 'demo', speed: 100, clusters: CLUSTERS, redisCluster: redis }).catch(async (error) => {
    await redis.stop();
    throw error;
  });
  let stopWatching = () => {};
  try {
    const tagged = keyPrefixFor(redis.target, stack.prefix);
    expect(tagged).toBe(`{${stack.prefix}}`);
    const master = await redis.masterOf(`${tagged}:${UPGRADE_QUEUE}:meta`);
    let tookOver: Promise<number> | undefined;
    const during = new Promise<string>((resolve) => {
      stopWatching = pollWorld((s) => (s.sim.world.calls.some((c) => c.operation === 'UpdateClusterVersion') && s.sim.world.cluster('demo')?.status === 'UPDATING' ? 'while the control plane was UPDATING' : undefined))(stack, (moment) => {
        tookOver = how === 'failover' ? redis.failover(master) : redis.killMaster(master);
        resolve(moment);
      });
    });

    await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const driving = answerGatesUntilSummary(stack.fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 150_000, decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'reviewed before the Redis drill' }) });
    driving.catch(() => undefined);
    const moment = await Promise.race([during, driving.then(() => Promise.reject(new Error('the upgrade finished before the master could be taken over')))]);
    const newMaster = await tookOver!;
    // The bot's slot is now served by the former replica.
    expect(await redis.masterOf(`${tagged}:${UPGRADE_QUEUE}:meta`), moment).toBe(newMaster);

    const { summary } = await driving;
    await stack.fake.waitFor((f) => /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? '') && f.files().some((file) => file.text.length > 0), { timeoutMs: 30_000 });
    expect(summary.text).toMatch(/: ✅ Succeeded/);
    expect(stack.sim.world.cluster('demo')?.version).toBe('1.31');

    // No step repeated: each mutating AWS call once.
    const calls = await stack.acceptedCalls();
    expect(repeatedCalls(calls)).toEqual([]);
    expect(calls.filter((call) => call.operation === 'UpdateClusterVersion')).toHaveLength(1);

    // No step lost: every step of the job's plan ran to its end, as the job itself (read from the cluster) records.
    const connection = bullConnection(redis.target, { maxRetriesPerRequest: 3 });
    const queue = new Queue<UpgradeJobData>(UPGRADE_QUEUE, { connection: connection.connection, prefix: tagged });
    const [job] = await queue.getJobs(['completed']);
    await queue.close();
    await connection.release();
    expect(job?.data.state).toBe('succeeded');
    expect(job!.data.stepIndex).toBe(job!.data.steps.length);

    // No post lost or doubled: one status card, one timeline file, one message per step edited to its end, and no
    // reply twice (nothing crashed in the bot: a Redis takeover is no excuse for an at-least-once repeat).
    expect(stack.fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage')).toHaveLength(1);
    expect(stack.fake.files()).toHaveLength(1);
    const steps = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m));
    const titles = steps.map((view) => view?.title);
    expect(titles.filter((title, i) => titles.indexOf(title) !== i), 'step messages posted twice').toEqual([]);
    expect(steps.filter((view) => view?.state !== 'finished').map((view) => view?.title), 'step messages never shown finished').toEqual([]);
    const texts = repliesOf(stack.fake, CHANNEL).map((reply) => reply.text);
    expect(texts.filter((text, i) => texts.indexOf(text) !== i), 'replies posted twice').toEqual([]);
    expect(texts).toContain(summary.text);
  } finally {
    stopWatching();
    await stack.close();
    await redis.stop();
  }
}

describe.skipIf(!haveRedisClusterTools() && !process.env.CI)('an upgrade on a Redis Cluster survives a master being taken over', { timeout: 200_000 }, () => {
  it('CLUSTER FAILOVER on the replica of the bot\'s master during the control-plane wait', (ctx) => upgradeThroughTakeover('failover', ctx));
  it('the bot\'s master process killed during the control-plane wait', (ctx) => upgradeThroughTakeover('kill', ctx));
});
