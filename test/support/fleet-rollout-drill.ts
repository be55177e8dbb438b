import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { expect } from 'vitest';
import type { E2eStack } from './e2e-stack.js';

/** The two staging clusters both worker drills upgrade (fleet scenario, 17 clusters per tier). */
export const STAGING_PAIR = ['staging-002', 'staging-017'];
const who = { channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };
export const stagingPairConfig = STAGING_PAIR.map((name) => ({ name, region: 'eu-west-1', ...who }));

/**
 * `rollout --to 1.32 --waves 'staging-*' --max-parallel 2` from C0OPS, its wave approved, returned once both
 * upgrades have been announced as started — the moment the drills take a worker away. `parent()` reads the
 * rollout's thread parent afresh.
 */
export async function startStagingWave(stack: E2eStack): Promise<{ parent: () => FakeMessage }> {
  await stack.fake.sendSlashCommand({ text: "rollout --to 1.32 --waves 'staging-*' --soak 0m --max-parallel 2", userId: 'U0REQ', channelId: 'C0OPS' });
  const created = await stack.fake.waitFor((f) => f.ephemerals('U0REQ').find((e) => e.text.startsWith('Created rollout')), { timeoutMs: 30_000 });
  const id = /`(r[0-9a-f]{7})`/.exec(created.text)![1];
  const parent = () => stack.fake.messages('C0OPS').find((m) => m.text.includes(`Rollout \`${id}\` to`))!;
  const gate = await stack.fake.waitFor(() => parent()?.replies.find((r) => r.text.startsWith('Wave 1 of 1 is ready')), { timeoutMs: 30_000 });
  await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0OPS', messageTs: gate.ts, actionId: 'fleet:rollout' });
  await stack.fake.waitFor(() => (parent().replies.filter((r) => / started \(job `u/.test(r.text)).length === 2 ? true : undefined), { timeoutMs: 30_000 });
  return { parent };
}

/** The wave finished with nothing lost and nothing repeated: both at 1.32, one UpdateClusterVersion and one start each. */
export async function expectWaveDoneOnce(stack: E2eStack, parent: () => FakeMessage): Promise<void> {
  await stack.fake.waitFor(() => parent().replies.find((r) => /Rollout to 1\.32 succeeded/.test(r.text)), { timeoutMs: 50_000 });
  for (const name of STAGING_PAIR) {
    expect((await stack.eksClient().send(new DescribeClusterCommand({ name }))).cluster?.version).toBe('1.32');
    expect((await stack.acceptedCalls('UpdateClusterVersion')).filter((call) => call.cluster === name)).toHaveLength(1);
  }
  expect(parent().replies.filter((r) => / started \(job `u/.test(r.text))).toHaveLength(2);
  expect(parent().replies.filter((r) => /is at 1\.32/.test(r.text))).toHaveLength(2);
}
