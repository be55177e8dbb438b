import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DescribeAddonCommand, DescribeAddonVersionsCommand, EKSClient, UpdateAddonCommand, UpdateClusterVersionCommand, UpdateNodegroupVersionCommand } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { collectSnapshot } from '../../src/cluster-reader/collect-snapshot.js';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { simClientConfig, simControl, simEnv, useSim } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';
import { settled, simSources } from './read-path-harness.js';

/**
 * Insights as the preflight reads them, through the real EKS SDK and `aws` CLI against the simulator: stale ones
 * are refreshed first (StartInsightsRefresh, followed with DescribeInsightsRefresh), and a ROLLBACK_READINESS
 * insight — ERROR right after a hop, while the nodes are at the new version — never blocks the next hop.
 */
const run = promisify(execFile);
const sim = useSim();

async function aws(s: SimServer, ...args: string[]): Promise<any> {
  const { stdout } = await run('aws', ['--endpoint-url', s.url, '--region', 'us-west-2', '--output', 'json', 'eks', ...args], { env: simEnv(s), timeout: 20_000 });
  return stdout.trim() ? JSON.parse(stdout) : undefined;
}

describe('insights before a preflight', () => {
  it('refreshes insights older than the limit and says so; fresh ones are read as they are', async () => {
    const s = await sim('preflight-lab', { speed: 600 });
    await settled(s, 'lab');
    const before = await aws(s, 'list-insights', '--cluster-name', 'lab');
    const scannedAt = Math.min(...before.insights.map((i: any) => Date.parse(i.lastRefreshTime) || i.lastRefreshTime * 1000));
    expect(s.clock.now() - scannedAt).toBeGreaterThan(19 * 3600_000);

    const sources = simSources(s);
    const snapshot = await collectSnapshot(sources, { name: 'lab', region: 'us-west-2', insightsFreshness: { maxAgeMs: 12 * 3600_000, waitMs: 10 * 60_000, pollMs: 100 } });
    expect(snapshot.insightsRefresh).toMatchObject({ outcome: 'refreshed' });
    expect(s.clock.now() - snapshot.insightsRefresh!.asOf!).toBeLessThan(3600_000);
    expect(s.world.calls.filter((c) => c.operation === 'StartInsightsRefresh')).toHaveLength(1);
    // What the operator sees with the aws CLI afterwards: the refresh COMPLETED, the insights as of now.
    expect(await aws(s, 'describe-insights-refresh', '--cluster-name', 'lab')).toMatchObject({ status: 'COMPLETED' });

    const again = await collectSnapshot(sources, { name: 'lab', region: 'us-west-2', insightsFreshness: { maxAgeMs: 12 * 3600_000, waitMs: 10 * 60_000 } });
    expect(again.insightsRefresh?.outcome).toBe('fresh');
    expect(s.world.calls.filter((c) => c.operation === 'StartInsightsRefresh')).toHaveLength(1);
    expect(buildPlan(again, '1.31').context?.insightsAsOf).toBe(new Date(again.insightsRefresh!.asOf!).toISOString());
  });

  it('refreshes young insights that predate the cluster\'s last version change: they still judge the upgrade just done', async () => {
    const s = await sim('demo', { speed: 600 });
    await settled(s, 'demo');
    // A scan from a moment ago, about the upgrade to 1.31.
    s.world.cluster('demo')!.insightsRefreshedAt = s.clock.now();
    expect(new Set((await aws(s, 'list-insights', '--cluster-name', 'demo')).insights.map((i: any) => i.kubernetesVersion))).toEqual(new Set(['1.31']));
    const eks = new EKSClient(simClientConfig(s));
    await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    await until(() => s.world.cluster('demo')?.version === '1.31' && s.world.cluster('demo')?.status === 'ACTIVE', 'the control plane at 1.31', { timeoutMs: 20_000 });

    const freshness = { maxAgeMs: 12 * 3600_000, waitMs: 10 * 60_000, pollMs: 100 };
    const snapshot = await collectSnapshot(simSources(s), { name: 'demo', region: 'us-west-2', insightsFreshness: freshness });
    expect(snapshot.insightsRefresh).toMatchObject({ outcome: 'refreshed' });
    expect(snapshot.insights.ok && snapshot.insights.value.filter((i) => i.category === 'UPGRADE_READINESS').map((i) => i.kubernetesVersion)).toContain('1.32');
    expect(s.world.calls.filter((c) => c.operation === 'StartInsightsRefresh')).toHaveLength(1);
  });

  it('the aws CLI starts a refresh that is IN_PROGRESS, then COMPLETED', async () => {
    // A manual clock: the refresh stays in progress until the test moves time on, however slow the CLI is.
    const s = await sim('preflight-lab', { clock: createManualClock() });
    expect(await aws(s, 'start-insights-refresh', '--cluster-name', 'lab')).toMatchObject({ status: 'IN_PROGRESS' });
    expect(await aws(s, 'describe-insights-refresh', '--cluster-name', 'lab')).toMatchObject({ status: 'IN_PROGRESS' });
    await simControl(s, 'POST', 'advance', { ms: 60_000 });
    const done = await aws(s, 'describe-insights-refresh', '--cluster-name', 'lab');
    expect(done).toMatchObject({ status: 'COMPLETED' });
    const listed = await aws(s, 'list-insights', '--cluster-name', 'lab');
    expect(new Set(listed.insights.map((i: any) => i.lastRefreshTime))).toEqual(new Set([done.endedAt]));
  });

  it('a cluster upgraded one hop (nodes too) has a rollback-readiness ERROR that does not block its next hop', async () => {
    const s = await sim('demo', { speed: 1200 });
    const eks = new EKSClient(simClientConfig(s));
    await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    await until(() => s.world.cluster('demo')?.version === '1.31' && s.world.cluster('demo')?.status === 'ACTIVE', 'the control plane at 1.31', { timeoutMs: 20_000 });
    await eks.send(new UpdateNodegroupVersionCommand({ clusterName: 'demo', nodegroupName: 'demo-ng', version: '1.31' }));
    const store = s.world.kube('demo')!;
    await until(
      () => {
        const nodes = store.list('nodes');
        return nodes.length === 2 && nodes.every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31')) && s.world.cluster('demo')!.nodegroups.get('demo-ng')!.status === 'ACTIVE';
      },
      'demo-ng at 1.31',
      { timeoutMs: 60_000 },
    );
    // The add-ons as the job moves them after the hop (the 1.31 defaults), so only the rollback insight could block 1.32.
    await Promise.all(
      ['coredns', 'kube-proxy', 'vpc-cni'].map(async (addon) => {
        const { addons } = await eks.send(new DescribeAddonVersionsCommand({ addonName: addon, kubernetesVersion: '1.31' }));
        const versions = addons?.[0]?.addonVersions ?? [];
        const wanted = (versions.find((v) => v.compatibilities?.some((c) => c.clusterVersion === '1.31' && c.defaultVersion)) ?? versions[0]).addonVersion!;
        const { addon: current } = await eks.send(new DescribeAddonCommand({ clusterName: 'demo', addonName: addon }));
        if (current?.addonVersion !== wanted) await eks.send(new UpdateAddonCommand({ clusterName: 'demo', addonName: addon, addonVersion: wanted }));
      }),
    );
    await until(() => [...s.world.cluster('demo')!.addons.values()].every((a) => a.status === 'ACTIVE'), 'the add-ons updated', { timeoutMs: 20_000 });
    await settled(s, 'demo');
    // EKS rescans about daily: the rollback-readiness insights appear once a scan has run after the hop.
    await aws(s, 'start-insights-refresh', '--cluster-name', 'demo');
    await until(async () => (await aws(s, 'describe-insights-refresh', '--cluster-name', 'demo')).status === 'COMPLETED', 'the insights refresh', { timeoutMs: 20_000 });

    const rollback = await aws(s, 'list-insights', '--cluster-name', 'demo', '--filter', 'categories=ROLLBACK_READINESS');
    // Only rollback insights, about 1.30; the kubelet one is ERROR while the nodes are at 1.31.
    expect(rollback.insights.length).toBeGreaterThan(0);
    expect(rollback.insights.every((i: any) => i.category === 'ROLLBACK_READINESS' && i.kubernetesVersion === '1.30')).toBe(true);
    expect(rollback.insights).toContainEqual(expect.objectContaining({ name: 'Kubelet version skew', insightStatus: expect.objectContaining({ status: 'ERROR' }) }));

    const snapshot = await collectSnapshot(simSources(s), { name: 'demo', region: 'us-west-2', targetMinors: ['1.32'] });
    const plan = buildPlan(snapshot, '1.32');
    expect(plan.findings.filter((f) => /rollback/i.test(f.title))).toEqual([]);
    expect(plan.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(plan.blocking).toBe(false);
  });
});
