import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { createLogger } from '../../src/log/logger.js';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { E2E_CREDENTIALS, startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerEveryGate } from '../support/e2e-thread.js';

/**
 * Two workers share a rollout's wave; one of them shuts down (a rolling deploy) while the wave's upgrades run. Its
 * lanes are parked and picked up by the other worker, which follows the same upgrade jobs: the wave completes, each
 * cluster's control plane is updated once, and each start is announced once in the rollout's thread.
 */
const who = { channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };

describe('a worker stopping mid-rollout', () => {
  let stack: E2eStack;
  let second: RunningBot | undefined;
  let gates: { stop(): void } | undefined;

  beforeAll(async () => {
    stack = await startE2eStack({
      scenario: 'fleet',
      fleetClusters: 17,
      speed: 600,
      botClock: 'sim',
      pollSeconds: 60,
      clusters: [
        { name: 'staging-002', region: 'eu-west-1', ...who },
        { name: 'staging-017', region: 'eu-west-1', ...who },
      ],
    });
    second = await startBot({ env: { ...stack.env, ROLE: 'worker', PORT: 0 }, config: stack.config, logger: createLogger({ level: 'silent' }), aws: { endpoint: stack.sim.url, credentials: E2E_CREDENTIALS }, clock: stack.sim.clock });
    gates = answerEveryGate(stack.fake, 'C0OPS', 'U0APP');
  }, 60_000);

  afterAll(async () => {
    gates?.stop();
    await second?.stop();
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
    await second!.stop();
    second = undefined;
    await stack.fake.waitFor(() => parent().replies.find((r) => /Rollout to 1\.32 succeeded/.test(r.text)), { timeoutMs: 50_000 });
    for (const name of ['staging-002', 'staging-017']) {
      expect((await stack.eksClient().send(new DescribeClusterCommand({ name }))).cluster?.version).toBe('1.32');
      expect((await stack.acceptedCalls('UpdateClusterVersion')).filter((call) => call.cluster === name)).toHaveLength(1);
    }
    expect(parent().replies.filter((r) => / started \(job `u/.test(r.text))).toHaveLength(2);
    expect(parent().replies.filter((r) => /is at 1\.32/.test(r.text))).toHaveLength(2);
  }, 90_000);
});
