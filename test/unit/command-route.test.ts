import { describe, expect, it } from 'vitest';
import { COMMAND_HANDLERS } from '../../commands/routing/command-handlers.js';
import { SUBCOMMANDS } from '../../commands/routing/command-usage.js';
import { renderHelp } from '../../commands/help.js';
import { parseCommand } from '../../commands/routing/parse-command.js';
import { routeCommand } from '../../commands/routing/route-command.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import type { KubePort } from '../../src/ports/kube-port.js';
import { createManualClock, makeNode } from '@eks-upgrade-bot/sim';
import { createFakeUpgradeControl } from '../support/fake-upgrade-control.js';

/**
 * The router and subcommands against stub AWS/Kubernetes ports (the integration tests use the simulator): every
 * refusal is an ephemeral sentence with the right usage, and nothing reaches the engine on bad input.
 */
const config = parseClustersConfig({
  clusters: [
    { name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] },
    { name: 'prod', region: 'eu-west-1', channels: ['C0PROD'], requesters: ['U0REQ'], approvers: ['U0APP'] },
  ],
});

function setup(version = '1.30', offered = ['1.30', '1.31', '1.32', '1.33']) {
  const clock = createManualClock();
  const control = createFakeUpgradeControl({ now: clock.now });
  const eksCalls: string[] = [];
  const eks = {
    async describeCluster(name: string) {
      eksCalls.push(`DescribeCluster ${name}`);
      if (name === 'prod') throw Object.assign(new Error('User is not authorized to perform: eks:DescribeCluster'), { name: 'AccessDeniedException', $metadata: {} });
      return { name, version, platformVersion: 'eks.5', status: 'ACTIVE' };
    },
    async describeClusterVersions() {
      return offered.map((clusterVersion) => ({ clusterVersion }));
    },
    // status starts these lists beside DescribeCluster; this cluster has none of each.
    listAddons: async () => [],
    listNodegroups: async () => [],
    listInsights: async () => [],
  } as unknown as EksPort;
  const nodes = ['a', 'b'].map((suffix) =>
    makeNode({ name: `ip-10-0-0-${suffix}`, labels: { 'eks.amazonaws.com/nodegroup': 'mng-1' }, kubeletVersion: 'v1.30.14-eks-f69f56f', instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2' }),
  );
  const kube = { list: async () => ({ items: nodes, resourceVersion: '1' }) } as unknown as KubePort;
  const deps = {
    config,
    eks: () => eks,
    kube: async () => kube,
    ssm: () => ({}),
    ec2: () => ({}),
    control,
    usergroups: { members: async () => [] },
    clock,
    logger: createLogger({ level: 'silent' }),
  } as unknown as BotDeps;
  const replies: Array<{ text: string; response_type?: string }> = [];
  const run = (text: string, user = 'U0REQ', channel = 'C0DEMO') =>
    routeCommand({ parsed: parseCommand(text), userId: user, channelId: channel, respond: async (message) => void replies.push(message) }, deps, COMMAND_HANDLERS);
  return { run, replies, control, eksCalls, last: () => replies[replies.length - 1] };
}

describe('refusals are ephemeral, explain, and change nothing', () => {
  it.each([
    ['deploy demo', 'U0REQ', 'C0DEMO', /`deploy` is not a subcommand[\s\S]*Subcommands: `help`, `status`/],
    ['start demo --to latest', 'U0REQ', 'C0DEMO', /`latest` is not a Kubernetes minor version[\s\S]*Usage: `\/eks-upgrade start &lt;cluster&gt; --to &lt;minor&gt; \[--dry-run\]`/],
    ['start nope --to 1.31', 'U0REQ', 'C0DEMO', /no cluster `nope` in clusters.yaml. From this channel you may use `demo`/],
    ['start prod --to 1.31', 'U0REQ', 'C0DEMO', /prod cannot be driven from this channel; clusters.yaml allows it in <#C0PROD>/],
    ['start demo --to 1.31', 'U0APP', 'C0DEMO', /not among the requesters of demo.*<@U0REQ>/],
    ['status', 'U0REQ', 'C0OTHER', /No cluster may be driven from this channel/],
    ['start demo --to 1.30', 'U0REQ', 'C0DEMO', /demo is already at 1.30/],
    ['start demo --to 1.29', 'U0REQ', 'C0DEMO', /cannot downgrade/],
    ['start demo --to 1.40', 'U0REQ', 'C0DEMO', /EKS does not offer Kubernetes 1.40 \(it offers 1.30–1.33\)/],
    ['pause demo', 'U0APP', 'C0DEMO', /No upgrade of demo is running/],
    ['abort job-404', 'U0APP', 'C0DEMO', /no cluster or job called `job-404`/],
  ])('%s (user %s in %s)', async (text, user, channel, expected) => {
    const { run, replies, control } = setup();
    expect(await run(text, user, channel)).toBe('rejected');
    expect(replies).toHaveLength(1);
    expect(replies[0].response_type).toBe('ephemeral');
    expect(replies[0].text).toMatch(expected);
    expect(control.mutations()).toEqual([]);
  });

  it('an AWS error becomes a sentence naming the operation and the fix, not a stack', async () => {
    const { run, last } = setup();
    const prodChannel = await run('status prod', 'U0REQ', 'C0PROD');
    expect(prodChannel).toBe('error');
    expect(last().text).toMatch(/`status prod` did not complete\. DescribeCluster for prod failed: AccessDeniedException: .*Grant the bot's IAM role the eks:DescribeCluster permission/);
    expect(last().text).not.toMatch(/\n\s+at /);
  });
});

describe('start', () => {
  it('starts one job with who, where, from and to, and points at its thread', async () => {
    const { run, last, control } = setup();
    expect(await run('start demo --to 1.31 --dry-run')).toBe('ok');
    expect(control.mutations()).toEqual([
      { method: 'start', args: [{ cluster: 'demo', region: 'us-west-2', to: '1.31', requestedBy: 'U0REQ', channel: 'C0DEMO', dryRun: true }, '1.30'] },
    ]);
    expect(last()).toMatchObject({ response_type: 'ephemeral' });
    expect(last().text).toMatch(/Started a dry run of upgrading demo from 1.30 to 1.31 \(job `job-1`\).*<https:\/\/slack.com\/archives\/C0DEMO\/p1700000100\d{6}\|thread>/);
  });

  it('starts a target two minors ahead as one job that runs hop after hop', async () => {
    const { run, last, control } = setup();
    expect(await run('start demo --to 1.32')).toBe('ok');
    expect(control.mutations()).toEqual([
      { method: 'start', args: [{ cluster: 'demo', region: 'us-west-2', to: '1.32', requestedBy: 'U0REQ', channel: 'C0DEMO', dryRun: false }, '1.30'] },
    ]);
    expect(last().text).toMatch(/^Started upgrading demo from 1.30 to 1.32 in 2 hops \(1.30 → 1.31 → 1.32\), each with its own approval gate \(job `job-1`\)/);
  });

  it('a second start is refused with a link to the running job', async () => {
    const { run, last, control } = setup();
    await run('start demo --to 1.31');
    expect(await run('start demo --to 1.31')).toBe('rejected');
    expect(last().text).toMatch(/An upgrade of demo is already running \(1.30 → 1.31, step preflight, running\): see its <https:\/\/slack.com\/archives\/C0DEMO\/p\d+\|thread>/);
    // Refused from the engine's record of the running job, before the cluster is read for a plan.
    expect(control.mutations().filter((call) => call.method === 'start')).toHaveLength(1);
  });
});

describe('status, jobs, controls', () => {
  it('status shows versions and nodes by node group', async () => {
    const { run, last } = setup();
    expect(await run('status demo')).toBe('ok');
    expect(last().text).toContain('*demo*: control plane 1.30 (platform eks.5), ACTIVE');
    expect(last().text).toContain('managed node group `mng-1`: 2 nodes, kubelet v1.30.14-eks-f69f56f ×2');
  });

  it('status of several clusters shows an unreadable one as a line instead of failing', async () => {
    const { run, last } = setup();
    expect(await run('status --all', 'U0REQ', 'C0PROD')).toBe('ok');
    expect(last().text).toMatch(/^\*prod\*: :warning: DescribeCluster for prod failed: AccessDeniedException/);
  });

  it('bare status covers the clusters of this channel only', async () => {
    const { run, eksCalls } = setup();
    await run('status');
    expect(eksCalls).toEqual(['DescribeCluster demo']);
  });

  it('jobs lists this channel\'s jobs with state and thread link; pause by cluster reaches the engine', async () => {
    const { run, last, control } = setup();
    await run('start demo --to 1.31');
    await run('jobs');
    expect(last().text).toMatch(/\*Running\*\n.*\*demo\* 1.30 → 1.31: running, step preflight\. Job `job-1`, started by <@U0REQ> just now, <https:\/\/slack.com\/archives\/C0DEMO\/p\d+\|thread>/);
    expect(await run('pause demo', 'U0APP')).toBe('ok');
    expect(last().text).toBe('Paused the upgrade of demo (1.30 → 1.31).');
    expect(await run('resume job-1', 'U0REQ')).toBe('rejected'); // requester, not approver
    expect(last().text).toMatch(/Only the approvers of demo may resume/);
    expect(control.mutations().map((call) => call.method)).toEqual(['start', 'pause']);
  });
});

describe('help', () => {
  it('mentions every subcommand and every option, with examples', () => {
    // The whole help is in the blocks; the top-level text (≤ 4,000, Slack's fallback) only names the subcommands.
    const rendered = renderHelp();
    expect(rendered.text.length).toBeLessThanOrEqual(4000);
    const help = (rendered.blocks ?? []).map((block) => (block as { text?: { text?: string } }).text?.text ?? '').join('\n');
    for (const name of SUBCOMMANDS) expect(help).toContain(`/eks-upgrade ${name}`);
    for (const option of ['--to &lt;minor&gt;', '--dry-run', '--all']) expect(help).toContain(option);
    expect(help).toContain('/eks-upgrade start demo --to 1.31');
    // Slack would read a raw <cluster> as a link: placeholders must travel as entities.
    expect(help).not.toMatch(/<(cluster|minor|subcommand|job-id)/);
    expect(help).toContain('start &lt;cluster&gt; --to &lt;minor&gt;');
  });
});
