import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CancelUpdateCommand, DescribeInsightCommand, DescribeUpdateCommand, EKSClient, ListInsightsCommand, ListUpdatesCommand, UpdateClusterVersionCommand } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { simClientConfig, simControl, simEnv, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * EKS version rollback in the simulator over HTTP, as the bot and an operator reach it: the real `aws` CLI v1
 * (which has `--force` but no `--rollback-config` and no `cancel-update`) rolls `demo-rollback` back and
 * `describe-update` follows it; the SDK sends rollbackConfig and CancelUpdate; the /_sim control API opens a window,
 * moves the clock 7 days and forces a rollback-readiness insight into ERROR.
 */
const run = promisify(execFile);
const sim = useSim();

async function aws(s: SimServer, ...args: string[]): Promise<{ ok: boolean; json?: any; stderr: string }> {
  try {
    const { stdout, stderr } = await run('aws', ['--endpoint-url', s.url, '--region', 'us-west-2', '--output', 'json', 'eks', ...args], { env: simEnv(s), timeout: 20_000 });
    return { ok: true, json: stdout.trim() ? JSON.parse(stdout) : undefined, stderr };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: string }).stderr ?? error) };
  }
}

describe('version rollback through the aws CLI and the SDK', () => {
  it('the aws CLI lists the blocking rollback insights, is refused, then rolls back with --force; describe-update follows it', async () => {
    const s = await sim('demo-rollback', { clock: createManualClock() });
    const listed = await aws(s, 'list-insights', '--cluster-name', 'demo', '--filter', 'categories=ROLLBACK_READINESS,statuses=ERROR');
    expect(listed.json.insights.map((i: any) => i.name).sort()).toEqual(['Kubelet version skew', 'kube-proxy version skew']);
    const detail = await aws(s, 'describe-insight', '--cluster-name', 'demo', '--id', listed.json.insights.find((i: any) => i.name === 'Kubelet version skew').id);
    expect(detail.json.insight.resources).toHaveLength(2);
    const badFilter = await aws(s, 'list-insights', '--cluster-name', 'demo', '--filter', 'categories=ROLLBACK');
    expect(badFilter.stderr).toContain('(InvalidParameterException) when calling the ListInsights operation: Invalid insight category "ROLLBACK"');

    const refused = await aws(s, 'update-cluster-version', '--name', 'demo', '--kubernetes-version', '1.30');
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toContain('An error occurred (InvalidStateException) when calling the UpdateClusterVersion operation: Cluster version rollback to 1.30 is blocked by rollback readiness insights');

    const started = await aws(s, 'update-cluster-version', '--name', 'demo', '--kubernetes-version', '1.30', '--force');
    expect(started.json.update).toMatchObject({ type: 'VersionRollback', status: 'InProgress', params: [{ type: 'Version', value: '1.30' }, { type: 'PlatformVersion', value: 'eks.28' }] });
    const describe = async () => (await aws(s, 'describe-update', '--name', 'demo', '--update-id', started.json.update.id)).json.update;
    expect(await describe()).toMatchObject({ type: 'VersionRollback', status: 'InProgress' });
    await simControl(s, 'POST', 'advance', { ms: 10 * 60_000 });
    expect(await describe()).toMatchObject({ type: 'VersionRollback', status: 'Successful', errors: [] });
    expect((await aws(s, 'describe-cluster', '--name', 'demo')).json.cluster).toMatchObject({ version: '1.30', platformVersion: 'eks.28', status: 'ACTIVE' });
    const calls = await simControl(s, 'GET', 'calls?operation=UpdateClusterVersion');
    expect(calls.calls).toEqual([expect.objectContaining({ operation: 'UpdateClusterVersion', cluster: 'demo', target: '1.30' })]);
    expect(calls.rejected).toEqual([expect.objectContaining({ operation: 'UpdateClusterVersion', error: 'InvalidStateException' })]);
  });

  it('the SDK sends rollbackConfig; a forced insight ERROR blocks it, 7 simulated days close the window', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    const eks = new EKSClient(simClientConfig(s));
    const upgrade = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    await simControl(s, 'POST', 'advance', { ms: 10 * 60_000 });
    expect((await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: upgrade.update!.id! }))).update?.status).toBe('Successful');

    await simControl(s, 'POST', 'clusters/demo/insights', {
      name: 'API usage compatibility',
      status: 'ERROR',
      reason: 'Objects stored with APIs Kubernetes 1.30 cannot read.',
      resources: [{ kubernetesResourceUri: '/apis/apps/v1/namespaces/shop/deployments/web', reason: 'Uses a field 1.30 does not know.' }],
    });
    const { insights } = await eks.send(new ListInsightsCommand({ clusterName: 'demo', filter: { categories: ['ROLLBACK_READINESS'], statuses: ['ERROR'] } }));
    expect(insights?.map((i) => i.name)).toEqual(['API usage compatibility']);
    const { insight } = await eks.send(new DescribeInsightCommand({ clusterName: 'demo', id: insights![0].id! }));
    expect(insight?.resources?.[0]).toMatchObject({ kubernetesResourceUri: '/apis/apps/v1/namespaces/shop/deployments/web', insightStatus: { status: 'ERROR' } });
    const blocked = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.30', rollbackConfig: { timeoutMinutes: 720 } })).catch((e) => e);
    expect(blocked.name).toBe('InvalidStateException');
    expect(blocked.message).toContain('API usage compatibility (ERROR)');

    await simControl(s, 'POST', 'advance', { ms: 7 * 24 * 3600_000 });
    const late = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.30', rollbackConfig: { timeoutMinutes: 720 }, force: true })).catch((e) => e);
    expect(late.name).toBe('InvalidRequestException');
    expect(late.message).toMatch(/^The rollback window for cluster demo closed on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, 7 days after its upgrade to Kubernetes 1\.31 completed/);
    expect((await eks.send(new ListInsightsCommand({ clusterName: 'demo', filter: { categories: ['ROLLBACK_READINESS'] } }))).insights).toEqual([]);

    // The control API can pretend the upgrade ended an hour ago: the window is open again.
    await simControl(s, 'DELETE', 'clusters/demo/insights');
    await simControl(s, 'POST', 'clusters/demo', { upgradedFrom: { version: '1.30', hoursAgo: 1 } });
    // The made-up upgrade is listed like the real one before it (ListUpdates keeps both).
    const { updateIds } = await eks.send(new ListUpdatesCommand({ name: 'demo' }));
    // ListUpdates answers in no particular order (docs/simulator-fidelity.md): order by createdAt, oldest first.
    const listed = (await Promise.all(updateIds!.map(async (updateId) => (await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId }))).update!)))
      .sort((a, b) => a.createdAt!.getTime() - b.createdAt!.getTime());
    expect(listed.map((u) => [u.type, u.status])).toEqual([
      ['VersionUpdate', 'Successful'],
      ['VersionUpdate', 'Successful'],
    ]);
    expect(s.clock.now() - listed[1].createdAt!.getTime()).toBe(3600_000 + 10 * 60_000);
    const rollback = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.30', rollbackConfig: { timeoutMinutes: 720 } }));
    expect(rollback.update).toMatchObject({ type: 'VersionRollback', status: 'InProgress' });
  });

  it('the SDK cancels an Auto Mode node rollback with CancelUpdate; a second cancel of a finished update is refused', async () => {
    const s = await sim('automode', { clock: createManualClock() });
    const eks = new EKSClient(simClientConfig(s));
    await simControl(s, 'POST', 'advance', { ms: 60_000 });
    await eks.send(new UpdateClusterVersionCommand({ name: 'auto', version: '1.31' }));
    await simControl(s, 'POST', 'advance', { ms: 40 * 60_000 });
    const { update } = await eks.send(new UpdateClusterVersionCommand({ name: 'auto', version: '1.30', rollbackConfig: { timeoutMinutes: 240 } }));
    await simControl(s, 'POST', 'advance', { ms: 60_000 });
    const cancelled = await eks.send(new CancelUpdateCommand({ name: 'auto', updateId: update!.id!, clientRequestToken: 'abort-1' }));
    expect(cancelled.update).toMatchObject({ type: 'VersionRollback', status: 'InProgress', cancellation: { status: 'InProgress' } });
    await simControl(s, 'POST', 'advance', { ms: 60_000 });
    const after = await eks.send(new DescribeUpdateCommand({ name: 'auto', updateId: update!.id! }));
    expect(after.update).toMatchObject({ status: 'Cancelled', cancellation: { status: 'Successful' } });
    // A retry of the same request (same token) answers as before; a new cancel of a finished update is refused.
    const retried = await eks.send(new CancelUpdateCommand({ name: 'auto', updateId: update!.id!, clientRequestToken: 'abort-1' }));
    expect(retried.update).toMatchObject({ status: 'Cancelled' });
    const again = await eks.send(new CancelUpdateCommand({ name: 'auto', updateId: update!.id! })).catch((e) => e);
    expect(again.name).toBe('InvalidRequestException');
    const calls = await simControl(s, 'GET', 'calls?operation=CancelUpdate');
    expect(calls.calls).toEqual([expect.objectContaining({ operation: 'CancelUpdate', cluster: 'auto', target: update!.id })]);
    expect(calls.rejected).toEqual([expect.objectContaining({ operation: 'CancelUpdate', error: 'InvalidRequestException' })]);
  });
});
