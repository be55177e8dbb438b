import { describe, expect, it } from 'vitest';
import { defaultAddonVersion } from '../../../src/sim/aws/eks/addon-catalog.js';
import { amiIdFor } from '../../../src/sim/aws/eks/version-catalog.js';
import { startAddonUpdate } from '../../../src/sim/aws/eks/addon-update.js';
import { startClusterVersionUpdate } from '../../../src/sim/aws/eks/cluster-update.js';
import { computeInsights } from '../../../src/sim/aws/eks/insights.js';
import { startNodegroupVersionUpdate } from '../../../src/sim/aws/eks/nodegroup-update.js';
import { useWorld, type TestWorld } from './use-world.js';
import { awsError } from './aws-error-of.js';

/**
 * EKS version rollback in the simulator, on a manual clock: UpdateClusterVersion to N-1 within 7 days of an in-place
 * upgrade is a VersionRollback; every refused case answers EKS's error type with a sentence; ROLLBACK_READINESS
 * insights report what is newer than N-1 and turn PASSING once the data plane and add-ons are back.
 */
const world = useWorld();
const DAY = 24 * 3600_000;

const rollbackInsights = (t: TestWorld) => computeInsights(t.world, t.cluster()).filter((i) => i.category === 'ROLLBACK_READINESS');
const insight = (t: TestWorld, name: string) => rollbackInsights(t).find((i) => i.name === name);

/** demo upgraded in place 1.30 → 1.31 on the simulated clock (control plane only). */
async function upgraded(): Promise<TestWorld> {
  const t = await world('demo');
  startClusterVersionUpdate(t.world, t.cluster(), '1.31');
  await t.clock.advance(10 * 60_000);
  expect(t.cluster().version).toBe('1.31');
  return t;
}

/** Moves the node group and kube-proxy back to 1.30, as the bot would before the control plane. */
async function dataPlaneBack(t: TestWorld): Promise<void> {
  const cluster = t.cluster();
  const ngUpdate = startNodegroupVersionUpdate(t.world, cluster, cluster.nodegroups.get('demo-ng')!, { version: '1.30' });
  await t.advance(60 * 60_000);
  expect(ngUpdate.status).toBe('Successful');
  startAddonUpdate(t.world, cluster, 'kube-proxy', { addonVersion: defaultAddonVersion('kube-proxy', '1.30') });
  await t.advance(2 * 60_000);
}

describe('version rollback (UpdateClusterVersion to N-1)', () => {
  it('after an in-place upgrade, goes back to 1.30 as a VersionRollback with the latest 1.30 platform version', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    // Right after the control-plane upgrade, the nodes are still at 1.30: nothing blocks the rollback.
    expect(insight(t, 'Kubelet version skew')?.insightStatus.status).toBe('PASSING');
    const update = startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes: 240 });
    expect(update).toMatchObject({ type: 'VersionRollback', status: 'InProgress', errors: [] });
    expect(update.params).toEqual([
      { type: 'Version', value: '1.30' },
      { type: 'PlatformVersion', value: 'eks.28' },
    ]);
    expect(cluster.status).toBe('UPDATING');
    // Nothing else may start meanwhile.
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.32'))).toMatchObject({ status: 409, type: 'ResourceInUseException' });

    await t.clock.advance(10 * 60_000);
    expect(update.status).toBe('Successful');
    expect(cluster).toMatchObject({ version: '1.30', platformVersion: 'eks.28', status: 'ACTIVE' });
    expect(cluster.store.gitVersion).toBe('v1.30.14-eks-f69f56f');
    // The data plane is untouched: the node group still says 1.30 (it never moved), add-ons as they were.
    expect(cluster.nodegroups.get('demo-ng')?.version).toBe('1.30');
    expect(cluster.addons.get('kube-proxy')?.version).toBe('v1.30.14-eksbuild.5');
    // The rollback insights are gone; a second rollback is refused with the reason.
    expect(rollbackInsights(t)).toEqual([]);
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.29'))).toMatchObject({ status: 400, type: 'InvalidParameterException' });
  });

  it('ends Failed with an injected error, the control plane left at N and the rollback retryable', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    t.world.faults.failNextClusterUpdate = { errorCode: 'ClusterUnreachable', errorMessage: 'The control plane did not come back healthy; EKS kept 1.31.' };
    const failed = startClusterVersionUpdate(t.world, cluster, '1.30');
    await t.clock.advance(10 * 60_000);
    expect(failed).toMatchObject({ type: 'VersionRollback', status: 'Failed', errors: [{ errorCode: 'ClusterUnreachable', resourceIds: ['demo'] }] });
    expect(cluster).toMatchObject({ version: '1.31', status: 'ACTIVE' });
    const retry = startClusterVersionUpdate(t.world, cluster, '1.30');
    await t.clock.advance(10 * 60_000);
    expect(retry.status).toBe('Successful');
  });

  it('is possible without rollbackConfig too (the user guide runs update-cluster-version --kubernetes-version N-1)', async () => {
    const t = await upgraded();
    const update = startClusterVersionUpdate(t.world, t.cluster(), '1.30');
    expect(update.type).toBe('VersionRollback');
  });

  it('refuses a cluster created at its version, with InvalidRequestException and a sentence', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    cluster.version = '1.31';
    const error = awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30', false, {}));
    expect(error).toMatchObject({ status: 400, type: 'InvalidRequestException' });
    expect(error.message).toBe('Cluster demo was not upgraded in place to Kubernetes 1.31. Only a cluster upgraded in place can be rolled back; a cluster created at its current version cannot.');
    expect(cluster.updates).toEqual([]);
  });

  it('refuses after 7 days on the simulated clock, saying when the window closed; allows it just before', async () => {
    const t = await upgraded();
    const cluster = t.cluster();
    const upgradedAt = t.clock.now();
    await t.clock.advance(7 * DAY - 60_000);
    expect(rollbackInsights(t).length).toBeGreaterThan(0);
    await t.clock.advance(60_000);
    const error = awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes: 720 }));
    expect(error).toMatchObject({ status: 400, type: 'InvalidRequestException' });
    const closed = new Date(upgradedAt + 7 * DAY).toISOString().replace('.000Z', 'Z');
    expect(error.message).toContain(`The rollback window for cluster demo closed on ${closed}, 7 days after its upgrade to Kubernetes 1.31 completed`);
    // The ROLLBACK_READINESS insights go with the window.
    expect(rollbackInsights(t)).toEqual([]);
    expect(cluster.updates.filter((u) => u.type === 'VersionRollback')).toEqual([]);
  });

  it('refuses more than one minor back, a cluster not ACTIVE, an update in flight, and a bad timeout', async () => {
    const t = await world({
      name: 'twice',
      eks: { versions: ['1.29', '1.30', '1.31'] },
      clusters: [{ name: 'twice', region: 'us-west-2', version: '1.31', upgradedFrom: { version: '1.30', hoursAgo: 1 } }],
    });
    const cluster = t.cluster();
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.29'))).toMatchObject({
      type: 'InvalidParameterException',
      message: 'Unsupported Kubernetes version rollback from 1.31 to 1.29. A version rollback goes back one minor version only, to 1.30.',
    });
    for (const timeoutMinutes of [60, 10081, 'soon']) {
      const error = awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes }));
      expect(error.type).toBe('InvalidParameterException');
      expect(error.message).toContain('rollbackConfig.timeoutMinutes must be a whole number of minutes between 120 and 10080');
    }
    cluster.status = 'FAILED';
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30'))).toMatchObject({ type: 'InvalidRequestException', message: 'Cluster twice is in FAILED state and cannot be updated.' });
    cluster.status = 'ACTIVE';
    startClusterVersionUpdate(t.world, cluster, '1.30');
    expect(awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30'))).toMatchObject({ status: 409, type: 'ResourceInUseException' });
  });

  it('refuses N-1 in extended support while the upgrade policy is STANDARD', async () => {
    const t = await world({
      name: 'std',
      calendarAsOf: '2025-09-01',
      eks: { versions: ['1.30', '1.31'] },
      clusters: [{ name: 'std', region: 'us-west-2', version: '1.31', supportType: 'STANDARD', upgradedFrom: { version: '1.30', hoursAgo: 2 } }],
    });
    const error = awsError(() => startClusterVersionUpdate(t.world, t.cluster(), '1.30'));
    expect(error).toMatchObject({ type: 'InvalidRequestException' });
    expect(error.message).toContain('Kubernetes 1.30 is in extended support and cluster std has the STANDARD upgrade policy');
    t.cluster().supportType = 'EXTENDED';
    expect(startClusterVersionUpdate(t.world, t.cluster(), '1.30').type).toBe('VersionRollback');
  });
});

describe('ROLLBACK_READINESS insights', () => {
  it('report nodes and kube-proxy newer than N-1 with their resources, block without force, and PASS once fixed', async () => {
    const t = await world('demo-rollback');
    const cluster = t.cluster();
    // The upgrade that opened the window is in the cluster's updates, as ListUpdates keeps it on EKS.
    expect(cluster.updates).toEqual([
      expect.objectContaining({ type: 'VersionUpdate', status: 'Successful', params: [{ type: 'Version', value: '1.31' }, { type: 'PlatformVersion', value: 'eks.24' }], createdAt: t.clock.now() - DAY - 10 * 60_000 }),
    ]);
    const kubelet = insight(t, 'Kubelet version skew')!;
    expect(kubelet).toMatchObject({ category: 'ROLLBACK_READINESS', kubernetesVersion: '1.30', insightStatus: { status: 'ERROR' } });
    expect(kubelet.resources).toHaveLength(2);
    expect(kubelet.resources[0].kubernetesResourceUri).toMatch(/^\/api\/v1\/nodes\/ip-/);
    const proxy = insight(t, 'kube-proxy version skew')!;
    expect(proxy.insightStatus).toMatchObject({ status: 'ERROR', reason: 'kube-proxy v1.31.14-eksbuild.11 is newer than Kubernetes 1.30.' });
    expect(proxy.resources[0].arn).toBe('arn:aws:eks:us-west-2:111122223333:addon/demo/kube-proxy');
    // coredns v1.11.3, vpc-cni v1.19.6 and the pod identity agent run on 1.30 too.
    expect(insight(t, 'EKS add-on version compatibility')?.insightStatus.status).toBe('PASSING');

    const blocked = awsError(() => startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes: 720 }));
    expect(blocked).toMatchObject({ status: 400, type: 'InvalidStateException' });
    expect(blocked.message).toContain('blocked by rollback readiness insights with ERROR or UNKNOWN status: Kubelet version skew (ERROR), kube-proxy version skew (ERROR)');
    expect(blocked.message).toContain('retry with force');

    await dataPlaneBack(t);
    expect(cluster.nodegroups.get('demo-ng')).toMatchObject({ version: '1.30', releaseVersion: '1.30.14-20250715' });
    expect(cluster.store.list('nodes').map((n) => n.status.nodeInfo.kubeletVersion)).toEqual(['v1.30.14-eks-f69f56f', 'v1.30.14-eks-f69f56f']);
    expect(rollbackInsights(t).map((i) => [i.name, i.insightStatus.status])).toEqual([
      ['Kubelet version skew', 'PASSING'],
      ['kube-proxy version skew', 'PASSING'],
      ['EKS add-on version compatibility', 'PASSING'],
      ['Cluster health issues', 'PASSING'],
    ]);
    const update = startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes: 720 });
    await t.clock.advance(10 * 60_000);
    expect(update.status).toBe('Successful');
    expect(cluster.version).toBe('1.30');
  });

  it('force goes past an ERROR insight (and only past insights)', async () => {
    const t = await world('demo-rollback');
    const update = startClusterVersionUpdate(t.world, t.cluster(), '1.30', true);
    expect(update.type).toBe('VersionRollback');
    await t.clock.advance(10 * 60_000);
    expect(t.cluster().version).toBe('1.30');
    // The node group is now ahead of the control plane; it may go back to the cluster's version.
    const ng = startNodegroupVersionUpdate(t.world, t.cluster(), t.cluster().nodegroups.get('demo-ng')!, {});
    expect(ng.params).toContainEqual({ type: 'Version', value: '1.30' });
  });

  it('reports an add-on incompatible with N-1 with the versions that are', async () => {
    const t = await world('demo-rollback');
    const cluster = t.cluster();
    cluster.addons.get('coredns')!.version = 'v1.12.1-eksbuild.3'; // 1.31–1.34 only
    const compat = insight(t, 'EKS add-on version compatibility')!;
    expect(compat.insightStatus.status).toBe('ERROR');
    expect(compat.categorySpecificSummary.addonCompatibilityDetails?.map((d) => d.name)).toEqual(['coredns']);
    expect(compat.categorySpecificSummary.addonCompatibilityDetails?.[0].compatibleVersions).toContain('v1.11.3-eksbuild.10');
    // UpdateAddon takes a version of N-1 while the window is open.
    startAddonUpdate(t.world, cluster, 'coredns', { addonVersion: 'v1.11.3-eksbuild.10' });
    await t.clock.advance(60_000);
    expect(insight(t, 'EKS add-on version compatibility')?.insightStatus.status).toBe('PASSING');
  });
});

describe('node groups and add-ons going back to N-1', () => {
  it('a node group goes back one minor only while the cluster can roll back to it', async () => {
    const t = await world('demo-rollback');
    const cluster = t.cluster();
    const ng = cluster.nodegroups.get('demo-ng')!;
    const error = awsError(() => startNodegroupVersionUpdate(t.world, cluster, ng, { version: '1.29' }));
    expect(error.type).toBe('InvalidParameterException');
    expect(error.message).toContain('A node group can go back one minor version only');
    await t.clock.advance(7 * DAY);
    expect(awsError(() => startNodegroupVersionUpdate(t.world, cluster, ng, { version: '1.30' })).type).toBe('InvalidParameterException');
    expect(awsError(() => startAddonUpdate(t.world, cluster, 'kube-proxy', { addonVersion: 'v1.30.14-eksbuild.11' })).type).toBe('InvalidParameterException');
  });
});

describe('Karpenter nodes going back to N-1 (karpenter-lab)', () => {
  it('drift back when the EC2NodeClass is set back to the N-1 AMI, and the kubelet insight turns PASSING', async () => {
    const t = await world('karpenter-lab');
    const cluster = t.cluster();
    const setAmi = (id: string) =>
      cluster.store.mutate('ec2nodeclasses', 'default', undefined, (nc) => {
        nc.spec.amiSelectorTerms = [{ id }];
      });
    const karpenterKubelets = () => new Set(cluster.store.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool']).map((n) => n.status.nodeInfo.kubeletVersion));
    startClusterVersionUpdate(t.world, cluster, '1.31');
    await t.advance(10 * 60_000);
    setAmi(amiIdFor('1.31', 'AL2023'));
    await t.advance(40 * 60_000);
    expect(karpenterKubelets()).toEqual(new Set(['v1.31.14-eks-ecaa3a6']));
    expect(insight(t, 'Kubelet version skew')?.insightStatus.status).toBe('ERROR');

    setAmi(amiIdFor('1.30', 'AL2023'));
    await t.advance(40 * 60_000);
    expect(karpenterKubelets()).toEqual(new Set(['v1.30.14-eks-f69f56f']));
    expect(insight(t, 'Kubelet version skew')?.insightStatus.status).toBe('PASSING');
    const update = startClusterVersionUpdate(t.world, cluster, '1.30', false, { timeoutMinutes: 720 });
    await t.advance(10 * 60_000);
    expect(update.status).toBe('Successful');
  });
});
