import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerEveryGate } from '../support/e2e-thread.js';
import { startWorkerChild, type WorkerChild } from '../support/e2e-worker.js';

/**
 * The only worker process is killed (SIGKILL) while a rollout's wave upgrades two clusters; a new worker takes the
 * stalled lanes and upgrade jobs over once their locks expire and follows the same jobs: the rollout completes, each
 * control plane is updated once and each start is announced once.
 */
const who = { channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };
const clusters = [
  { name: 'staging-002', region: 'eu-west-1', ...who },
  { name: 'staging-017', region: 'eu-west-1', ...who },
];

describe('a worker killed mid-rollout', () => {
  let stack: E2eStack;
  const workers: WorkerChild[] = [];
  let gates: { stop(): void } | undefined;

  beforeAll(async () => {
    stack = await startE2eStack({ scenario: 'fleet', fleetClusters: 17, speed: 600, role: 'web', clusters });
    workers.push(await startWorkerChild(stack, clusters));
    gates = answerEveryGate(stack.fake, 'C0OPS', 'U0APP');
  }, 60_000);

  afterAll(async () => {
    gates?.stop();
    for (const worker of workers) await worker.stop().catch(() => undefined);
    await stack?.close();
  });

  it('loses nothing and repeats no mutating call', async () => {
    await stack.fake.sendSlashCommand({ text: "rollout --to 1.32 --waves 'staging-*' --soak 0m --max-parallel 2", userId: 'U0REQ', channelId: 'C0OPS' });
    const created = await stack.fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => e.text.startsWith('Created rollout')), { timeoutMs: 30_000 });
    const id = /`(r[0-9a-f]{7})`/.exec(created.text)![1];
    const parent = () => stack.fake.messages('C0OPS').find((m) => m.text.includes(`Rollout \`${id}\` to`))!;
    const gate = await stack.fake.waitFor(() => parent()?.replies.find((r) => r.text.startsWith('Wave 1 of 1 is ready')), { timeoutMs: 30_000 });
    await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: gate.ts, actionId: 'fleet:rollout' });
    await stack.fake.waitFor(() => (parent().replies.filter((r) => / started \(job `u/.test(r.text)).length === 2 ? true : undefined), { timeoutMs: 30_000 });
    await workers[0].kill();
    workers.push(await startWorkerChild(stack, clusters));
    await stack.fake.waitFor(() => parent().replies.find((r) => /Rollout to 1\.32 succeeded/.test(r.text)), { timeoutMs: 50_000 });
    for (const name of ['staging-002', 'staging-017']) {
      expect((await stack.eksClient().send(new DescribeClusterCommand({ name }))).cluster?.version).toBe('1.32');
      expect((await stack.acceptedCalls('UpdateClusterVersion')).filter((call) => call.cluster === name)).toHaveLength(1);
    }
    expect(parent().replies.filter((r) => / started \(job `u/.test(r.text))).toHaveLength(2);
    expect(parent().replies.filter((r) => /is at 1\.32/.test(r.text))).toHaveLength(2);
  }, 90_000);
});
