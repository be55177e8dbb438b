import { describe, expect, it } from 'vitest';
import { autoModeNodes, kubeletMinorOf } from '../../../src/sim/aws/eks/auto-mode.js';
import { cancelUpdate } from '../../../src/sim/aws/eks/cluster-rollback.js';
import { startClusterVersionUpdate } from '../../../src/sim/aws/eks/cluster-update.js';
import { computeInsights } from '../../../src/sim/aws/eks/insights.js';
import { useWorld, type TestWorld } from './use-world.js';
import { awsError } from './aws-error-of.js';

/**
 * EKS Auto Mode in the simulator (scenario `automode`, manual clock): EKS replaces Auto Mode nodes itself — to the new
 * version after a control-plane upgrade, back to N-1 before the control plane on a version rollback — honouring
 * PodDisruptionBudgets; CancelUpdate stops a node rollback; rollbackConfig.timeoutMinutes bounds it.
 */
const world = useWorld();

const minors = (t: TestWorld) => autoModeNodes(t.cluster()).map(kubeletMinorOf).sort();
const webPods = (t: TestWorld) => t.cluster().store.list('pods').filter((p) => p.metadata.namespace === 'shop' && p.status?.phase === 'Running');

/** `auto` upgraded to 1.31 with its nodes moved by EKS. */
async function upgraded(): Promise<TestWorld> {
  const t = await world('automode');
  await t.advance(60_000);
  const update = startClusterVersionUpdate(t.world, t.cluster(), '1.31');
  await t.advance(10 * 60_000);
  expect(update.status).toBe('Successful');
  await t.advance(30 * 60_000);
  expect(minors(t)).toEqual(['1.31', '1.31', '1.31']);
  return t;
}

describe('EKS Auto Mode nodes', () => {
  it('are replaced at the new version after a control-plane upgrade, one at a time, PDBs honoured', async () => {
    const t = await world('automode');
    await t.advance(60_000);
    expect(t.cluster().computeConfig).toMatchObject({ enabled: true, nodePools: ['general-purpose', 'system'] });
    expect(minors(t)).toEqual(['1.30', '1.30', '1.30']);
    expect(webPods(t)).toHaveLength(2);
    startClusterVersionUpdate(t.world, t.cluster(), '1.31');
    await t.advance(10 * 60_000);
    await t.advance(30 * 60_000);
    expect(minors(t)).toEqual(['1.31', '1.31', '1.31']);
    expect(webPods(t)).toHaveLength(2);
    // shop/web-pdb (minAvailable 1) never saw fewer than one healthy pod.
    expect(t.world.pdbMinimums.get('auto/shop/web-pdb')?.minHealthy).toBeGreaterThanOrEqual(1);
  });

  it('roll back before the control plane: the cluster stays ACTIVE while nodes go to N-1, then UPDATING, then N-1', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    // Auto Mode nodes are EKS's to roll back: no kubelet finding for them.
    expect(computeInsights(t.world, cluster).find((i) => i.category === 'ROLLBACK_READINESS' && i.name === 'Kubelet version skew')?.insightStatus.status).toBe('PASSING');
    const update = startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes: 720 });
    expect(update).toMatchObject({ type: 'VersionRollback', status: 'InProgress' });
    await t.advance(2 * 60_000);
    expect(cluster.status).toBe('ACTIVE');
    expect(cluster.version).toBe('1.31');
    // Other cluster updates wait for it.
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.32')).type).toBe('ResourceInUseException');
    let sawUpdating = false;
    for (let i = 0; i < 60 && update.status === 'InProgress'; i++) {
      await t.advance(60_000);
      if (cluster.status === 'UPDATING') {
        sawUpdating = true;
        expect(minors(t)).toEqual(['1.30', '1.30', '1.30']);
      }
    }
    expect(sawUpdating).toBe(true);
    expect(update.status).toBe('Successful');
    expect(cluster).toMatchObject({ version: '1.30', status: 'ACTIVE', platformVersion: 'eks.28' });
    expect(webPods(t)).toHaveLength(2);
  });

  it('CancelUpdate stops the node rollback: Cancelled, nodes back at the cluster version; refused once it cannot', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    const update = startClusterVersionUpdate(t.world, cluster, '1.30');
    await t.advance(4 * 60_000);
    expect(minors(t)).toContain('1.30');
    const cancelling = cancelUpdate(t.world, cluster, update.id);
    expect(cancelling).toMatchObject({ status: 'InProgress', cancellation: { status: 'InProgress' } });
    // Asking again while it is being cancelled changes nothing.
    expect(cancelUpdate(t.world, cluster, update.id).cancellation?.status).toBe('InProgress');
    await t.advance(60_000);
    expect(update).toMatchObject({ status: 'Cancelled', cancellation: { status: 'Successful' } });
    expect(cluster).toMatchObject({ version: '1.31', status: 'ACTIVE' });
    await t.advance(30 * 60_000);
    expect(minors(t)).toEqual(['1.31', '1.31', '1.31']);
    expect(awsError(() => cancelUpdate(t.world, cluster, update.id))).toMatchObject({
      type: 'InvalidRequestException',
      message: `Update ${update.id} is Cancelled and can no longer be cancelled.`,
    });
    expect(awsError(() => cancelUpdate(t.world, cluster, 'no-such-update'))).toMatchObject({ status: 404, type: 'ResourceNotFoundException', message: 'No update found for ID: no-such-update.' });

    // The window is still open: the rollback can be retried, and once the control plane phase began, cancel fails.
    const retry = startClusterVersionUpdate(t.world, cluster, '1.30');
    for (let i = 0; i < 60 && cluster.status !== 'UPDATING'; i++) await t.advance(60_000);
    expect(cluster.status).toBe('UPDATING');
    expect(awsError(() => cancelUpdate(t.world, cluster, retry.id))).toMatchObject({
      type: 'InvalidRequestException',
      message: `The control plane rollback of cluster auto has already begun; update ${retry.id} can no longer be cancelled.`,
    });
  });

  it('has the built-in NodePools; a budget of nodes "0" is a rollback ERROR and holds its nodes at N', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    expect(cluster.store.list('nodepools').map((p) => [p.metadata.name, p.spec.template.spec.nodeClassRef.group])).toEqual([
      ['general-purpose', 'eks.amazonaws.com'],
      ['system', 'eks.amazonaws.com'],
    ]);
    cluster.store.mutate('nodepools', 'general-purpose', undefined, (pool) => {
      pool.spec.disruption.budgets = [{ nodes: '0', reasons: ['Drifted'] }];
    });
    const controls = computeInsights(t.world, cluster).find((i) => i.name === 'Auto Mode node disruption controls')!;
    expect(controls.insightStatus.status).toBe('ERROR');
    expect(controls.resources).toEqual([expect.objectContaining({ kubernetesResourceUri: '/apis/karpenter.sh/v1/nodepools/general-purpose' })]);
    startClusterVersionUpdate(t.world, cluster, '1.30', true, { timeoutMinutes: 120 });
    await t.advance(30 * 60_000);
    // The system node went back; the general-purpose ones wait for the budget.
    const byPool = autoModeNodes(cluster).map((n) => [n.metadata.labels?.['karpenter.sh/nodepool'], kubeletMinorOf(n)]).sort();
    expect(byPool).toEqual([
      ['general-purpose', '1.31'],
      ['general-purpose', '1.31'],
      ['system', '1.30'],
    ]);
    expect(cluster.status).toBe('ACTIVE');
  });

  it('re-checks the insights once the nodes are back: an ERROR that appeared meanwhile stops it before the control plane', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    const update = startClusterVersionUpdate(t.world, cluster, '1.30');
    cluster.insightOverrides.set('ROLLBACK_READINESS/API usage compatibility', { category: 'ROLLBACK_READINESS', name: 'API usage compatibility', status: 'ERROR', resources: [] });
    for (let i = 0; i < 60 && update.status === 'InProgress'; i++) await t.advance(60_000);
    expect(update).toMatchObject({ status: 'Failed', errors: [expect.objectContaining({ errorCode: 'Unknown' })] });
    expect(update.errors[0].errorMessage).toContain('API usage compatibility (ERROR)');
    expect(cluster.version).toBe('1.31');
    await t.advance(30 * 60_000);
    expect(minors(t)).toEqual(['1.31', '1.31', '1.31']);
  });

  it('CancelUpdate refuses any other update, e.g. a version update of a cluster without Auto Mode', async () => {
    const t = await world('demo');
    const update = startClusterVersionUpdate(t.world, t.cluster(), '1.31');
    expect(awsError(() => cancelUpdate(t.world, t.cluster(), update.id))).toMatchObject({
      type: 'InvalidRequestException',
      message: `Update ${update.id} (VersionUpdate) cannot be cancelled. Only a VersionRollback update of an EKS Auto Mode cluster can be cancelled, while its nodes are rolling back.`,
    });
  });

  it('a do-not-disrupt node is a rollback ERROR; forced, the node rollback times out and the nodes return to N', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    const pinned = autoModeNodes(cluster)[0].metadata.name;
    cluster.store.mutate('nodes', pinned, undefined, (node) => {
      node.metadata.annotations = { ...node.metadata.annotations, 'karpenter.sh/do-not-disrupt': 'true' };
    });
    const controls = computeInsights(t.world, cluster).find((i) => i.name === 'Auto Mode node disruption controls')!;
    expect(controls.insightStatus.status).toBe('ERROR');
    expect(controls.resources).toEqual([expect.objectContaining({ kubernetesResourceUri: `/api/v1/nodes/${pinned}` })]);
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30')).type).toBe('InvalidStateException');

    const update = startClusterVersionUpdate(t.world, cluster, '1.30', true, { timeoutMinutes: 120 });
    await t.advance(119 * 60_000, 60_000);
    expect(update.status).toBe('InProgress');
    await t.advance(2 * 60_000);
    expect(update.status).toBe('Failed');
    expect(update.errors[0]).toMatchObject({ errorCode: 'Unknown', resourceIds: [pinned] });
    expect(update.errors[0].errorMessage).toContain('timed out after 120 minutes');
    expect(cluster.version).toBe('1.31');
    await t.advance(30 * 60_000);
    expect(minors(t)).toEqual(['1.31', '1.31', '1.31']);
  });
});
