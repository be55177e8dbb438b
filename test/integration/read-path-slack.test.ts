import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planCommand } from '../../commands/plan.js';
import { CommandRejected } from '../../commands/routing/command-rejected.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import { systemClock } from '../../src/ports/clock.js';
import { checkMessageBlocks, type SimServer } from '@eks-upgrade-bot/sim';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import { createTestAuditLog } from '../support/test-audit-log.js';
import { createFakeUpgradeControl } from '../support/fake-upgrade-control.js';
import { startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * `/eks-upgrade status` through the real Bolt app and the fake Slack, and the `plan` handler, both reading the
 * simulator's workshop cluster through the real SDKs: ephemeral Block Kit answers Slack accepts, error rows for
 * clusters that cannot be read, refusals for targets that make no sense.
 */
const CONFIG = parseClustersConfig({
  clusters: [
    { name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0WORK'], requesters: ['U0REQ'], approvers: ['U0APP'], nodegroups: { 'blue-mng-*': { strategy: 'blue-green' } }, karpenter: { upgradeBudget: '2' } },
    { name: 'ghost', region: 'us-west-2', channels: ['C0WORK'], requesters: ['U0REQ'], approvers: ['U0APP'] },
  ],
});

let sim: SimServer;
let harness: SlackHarness;

beforeAll(async () => {
  sim = await startSim('workshop', { speed: 600 });
  await settled(sim, 'eksworkshop-eksctl');
  const sources = simSources(sim);
  harness = await startSlackHarness({ config: CONFIG, eks: sources.eks, kube: sources.kube, ssm: sources.ssm, ec2: sources.ec2 });
});
afterAll(async () => {
  await harness?.close();
  await sim?.close();
});

function texts(message: { text: string; blocks?: unknown[] }): string {
  return [message.text, ...(message.blocks ?? []).map((b: any) => b.text?.text ?? b.fields?.map((f: any) => f.text).join('\n') ?? b.elements?.map((e: any) => e.text).join(' ') ?? '')].join('\n');
}

describe('/eks-upgrade status through Bolt', () => {
  it('status <cluster> answers ephemerally with the full card', async () => {
    await harness.fake.sendSlashCommand({ text: 'status eksworkshop-eksctl', userId: 'U0REQ', channelId: 'C0WORK' });
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > 0 && fake.ephemerals('U0REQ'), { timeoutMs: 20_000 });
    const all = texts(reply as any);
    expect(all).toContain('*eksworkshop-eksctl* (us-west-2) — control plane *1.25* (platform eks.44), *ACTIVE*');
    expect(all).toContain('Karpenter NodePool `default`');
    expect(all).toContain('Fargate `fp-assets`');
    expect(all).toContain('`coredns` v1.8.7-eksbuild.10');
    expect(harness.fake.messages()).toEqual([]);
  });

  it('status --all answers one row per cluster of the channel; the one that cannot be read is an error row', async () => {
    await harness.fake.sendSlashCommand({ text: 'status --all', userId: 'U0APP', channelId: 'C0WORK' });
    const [reply] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0 && fake.ephemerals('U0APP'), { timeoutMs: 20_000 });
    const all = texts(reply as any);
    expect(all).toContain('*2 clusters* — 1 could not be read');
    expect(all).toMatch(/`eksworkshop-eksctl` 1\.25 \(eks\.44\) ACTIVE/);
    expect(all).toMatch(/:x: `ghost` \(us-west-2\) — could not be read: DescribeCluster for ghost failed: ResourceNotFoundException/);
  });
});

describe('the plan handler', () => {
  const auditLog = createTestAuditLog();
  afterAll(() => auditLog.close());
  const deps = (): BotDeps => ({
    config: CONFIG,
    ...(({ eks, ec2, ssm, kube }) => ({ eks, ec2, ssm, kube }))(simSources(sim)),
    control: createFakeUpgradeControl(),
    audit: auditLog.audit,
    usergroups: { members: async () => [] },
    clock: systemClock,
    logger: createLogger({ level: 'silent' }),
  });
  async function plan(args: string[]): Promise<SlackMessage[]> {
    const replies: SlackMessage[] = [];
    await planCommand({ args, userId: 'U0REQ', channelId: 'C0WORK', deps: deps(), respond: async (message) => void replies.push(message) });
    return replies;
  }

  it('answers with Block Kit Slack accepts: blockers first, then the hop with strategies from clusters.yaml', async () => {
    const replies = await plan(['eksworkshop-eksctl']);
    expect(replies.length).toBeGreaterThan(0);
    expect(replies.length).toBeLessThanOrEqual(3);
    for (const reply of replies) expect(checkMessageBlocks(reply.blocks)).toEqual([]);
    const all = replies.map(texts).join('\n');
    expect(all).toContain('Plan: eksworkshop-eksctl 1.25 → 1.26');
    expect(all).toMatch(/:no_entry: \*Blocked\* by \d+ errors/);
    expect(all).toContain('`K8S004`');
    expect(all).toContain('Blue/green node group blue-mng-20250325023020754500000029');
    expect(all).toContain('at nodes: "2"');
    expect(all).toContain('strategies from clusters.yaml');
  });

  it('refuses a downgrade, the current version and a target EKS does not offer, in a sentence', async () => {
    await expect(plan(['eksworkshop-eksctl', '--to', '1.24'])).rejects.toThrow(new CommandRejected('1.24 is older than eksworkshop-eksctl\'s 1.25: EKS upgrades only move forward.'));
    await expect(plan(['eksworkshop-eksctl', '--to', '1.25'])).rejects.toThrow(/already at 1.25/);
    await expect(plan(['eksworkshop-eksctl', '--to', '1.40'])).rejects.toThrow(/EKS does not offer 1.40 in us-west-2; the newest it offers is 1\.\d+/);
  });
});
