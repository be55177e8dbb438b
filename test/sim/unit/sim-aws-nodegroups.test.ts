import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube-types/kube-object.js';
import { startClusterVersionUpdate } from '../../../src/sim/aws/eks/cluster-update.js';
import { createNodegroup, deleteNodegroup, startNodegroupConfigUpdate } from '../../../src/sim/aws/eks/nodegroup-lifecycle.js';
import { startNodegroupVersionUpdate } from '../../../src/sim/aws/eks/nodegroup-update.js';
import type { SimCluster } from '../../../src/sim/aws/world-types.js';
import { useWorld, type TestWorld } from './use-world.js';
import { awsError } from './aws-error-of.js';

/**
 * Managed node groups in the simulator on a manual clock: the update phases (surge, cordon, drain, terminate), the
 * 15-minute PodEvictionFailure when a PDB blocks the drain, force, custom-AMI groups, and create/delete.
 */
const world = useWorld();
const BLUE = 'blue-mng-20250325023020754500000029';
const CUSTOM = 'custom-20250401115802906700000007';

const nodesOf = (cluster: SimCluster, ng: string) => cluster.store.list('nodes').filter((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup'] === ng);
const kubelet = (node: KubeObject) => node.status.nodeInfo.kubeletVersion as string;
const ready = (node: KubeObject) => node.status.conditions.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');

async function upgradeControlPlane(t: TestWorld, version: string): Promise<void> {
  startClusterVersionUpdate(t.world, t.cluster(), version);
  await t.advance(10 * 60_000);
  expect(t.cluster().version).toBe(version);
}

describe('UpdateNodegroupVersion in the simulator', () => {
  it('surges new nodes, cordons the old ones, drains one at a time and ends with every node at the new version', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    await upgradeControlPlane(t, '1.31');
    const ng = cluster.nodegroups.get('demo-ng')!;
    const oldNames = nodesOf(cluster, 'demo-ng').map((n) => n.metadata.name);

    const update = startNodegroupVersionUpdate(t.world, cluster, ng, { version: '1.31' });
    expect(ng.status).toBe('UPDATING');
    await t.clock.advance(31_000); // setup done, surge launched
    const surged = nodesOf(cluster, 'demo-ng').filter((n) => !oldNames.includes(n.metadata.name));
    expect(surged).toHaveLength(2);
    expect(surged.map(kubelet)).toEqual(['v1.31.14-eks-ecaa3a6', 'v1.31.14-eks-ecaa3a6']);
    expect(surged.some(ready)).toBe(false);

    await t.clock.advance(100_000); // new nodes Ready → old nodes cordoned and out of load balancers
    for (const name of oldNames) {
      const node = cluster.store.get('nodes', name)!;
      expect(node.spec.unschedulable).toBe(true);
      expect(node.metadata.labels?.['node.kubernetes.io/exclude-from-external-load-balancers']).toBe('true');
    }
    // maxUnavailable 1: one old node at a time, so the second old node is still there once the first is gone.
    await t.clock.advance(70_000);
    const remainingOld = oldNames.filter((n) => cluster.store.get('nodes', n));
    expect(remainingOld.length).toBeGreaterThanOrEqual(1);

    await t.advance(10 * 60_000);
    expect(update.status).toBe('Successful');
    expect(ng).toMatchObject({ status: 'ACTIVE', version: '1.31', releaseVersion: '1.31.14-20250715' });
    const after = nodesOf(cluster, 'demo-ng');
    expect(after).toHaveLength(2);
    expect(after.every((n) => kubelet(n) === 'v1.31.14-eks-ecaa3a6' && ready(n) && !n.spec.unschedulable)).toBe(true);
    const shop = cluster.store.list('pods', 'shop');
    expect(shop.every((p) => p.status.phase === 'Running' && after.some((n) => n.metadata.name === p.spec.nodeName))).toBe(true);
  });

  it('fails with PodEvictionFailure after 15 minutes when a PDB blocks the drain, leaving the group ACTIVE with mixed nodes', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    await upgradeControlPlane(t, '1.26');
    const blue = cluster.nodegroups.get(BLUE)!;
    const update = startNodegroupVersionUpdate(t.world, cluster, blue, {});

    await t.advance(2 * 60_000 + 14 * 60_000); // setup + surge + 14 minutes of draining
    expect(update.status).toBe('InProgress');
    await t.advance(2 * 60_000);
    expect(update.status).toBe('Failed');
    expect(update.errors).toEqual([
      { errorCode: 'PodEvictionFailure', errorMessage: `Reached max retries while trying to evict pods from nodes in node group ${BLUE}`, resourceIds: [expect.stringMatching(/^ip-10-0-/)] },
    ]);
    expect(blue).toMatchObject({ status: 'ACTIVE', version: '1.25' });
    const nodes = nodesOf(cluster, BLUE);
    expect(nodes.map(kubelet).sort()).toEqual(['v1.25.16-eks-2d5f260', 'v1.26.15-eks-59bf375']);
    const orders = cluster.store.list('pods', 'orders').find((p) => p.metadata.name.startsWith('orders-') && !p.metadata.name.startsWith('orders-mysql'))!;
    expect(kubelet(cluster.store.get('nodes', orders.spec.nodeName)!)).toBe('v1.25.16-eks-2d5f260');

    // The workshop's remedy: two replicas satisfy the PDB, and the retried update goes through.
    cluster.store.mutate('deployments', 'orders', 'orders', (d) => (d.spec.replicas = 2));
    await t.advance(60_000);
    const retry = startNodegroupVersionUpdate(t.world, cluster, blue, {});
    await t.advance(10 * 60_000);
    expect(retry.status).toBe('Successful');
    expect(nodesOf(cluster, BLUE).map(kubelet)).toEqual(['v1.26.15-eks-59bf375']);
  });

  it('with force deletes the pods the PDB protects and completes', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    await upgradeControlPlane(t, '1.26');
    const update = startNodegroupVersionUpdate(t.world, cluster, cluster.nodegroups.get(BLUE)!, { force: true });
    await t.advance(8 * 60_000);
    expect(update.status).toBe('Successful');
    expect(nodesOf(cluster, BLUE).map(kubelet)).toEqual(['v1.26.15-eks-59bf375']);
  });

  it('refuses a version bump on a custom-AMI group and rolls it to a new launch template version instead', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    await upgradeControlPlane(t, '1.26');
    const custom = cluster.nodegroups.get(CUSTOM)!;
    expect(awsError(() => startNodegroupVersionUpdate(t.world, cluster, custom, { version: '1.26' }))).toMatchObject({
      type: 'InvalidParameterException',
      message: 'You cannot specify the field kubernetesVersion when using custom AMIs',
    });
    const lt = t.world.launchTemplates.get(custom.launchTemplate!.id)!;
    lt.versions.set(2, { imageId: 'ami-086414611b43bb691', createdAt: t.clock.now() });
    const update = startNodegroupVersionUpdate(t.world, cluster, custom, { launchTemplate: { id: lt.id, version: '2' } });
    await t.advance(8 * 60_000);
    expect(update.status).toBe('Successful');
    expect(custom).toMatchObject({ version: '1.26', releaseVersion: 'ami-086414611b43bb691', launchTemplate: { version: '2' } });
    const [node] = nodesOf(cluster, CUSTOM);
    expect(kubelet(node)).toBe('v1.26.15-eks-59bf375');
    expect(node.metadata.labels).toMatchObject({ 'eks.amazonaws.com/sourceLaunchTemplateVersion': '2', 'eks.amazonaws.com/nodegroup-image': 'ami-086414611b43bb691' });
  });

  it('refuses a node group version newer than the control plane and a second update in flight', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    const ng = cluster.nodegroups.get('demo-ng')!;
    expect(awsError(() => startNodegroupVersionUpdate(t.world, cluster, ng, { version: '1.31' })).type).toBe('InvalidParameterException');
    startNodegroupVersionUpdate(t.world, cluster, ng, {});
    expect(awsError(() => startNodegroupVersionUpdate(t.world, cluster, ng, {}))).toMatchObject({ status: 409, type: 'ResourceInUseException' });
  });
});

describe('node faults and self-managed nodes', () => {
  it('fails an update with NodeCreationFailure when new nodes never become Ready', async () => {
    const t = await world('demo');
    await upgradeControlPlane(t, '1.31');
    t.world.faults.nodesNeverReady = true;
    const cluster = t.cluster();
    const update = startNodegroupVersionUpdate(t.world, cluster, cluster.nodegroups.get('demo-ng')!, {});
    await t.advance(17 * 60_000);
    expect(update.status).toBe('Failed');
    expect(update.errors[0]).toMatchObject({ errorCode: 'NodeCreationFailure', errorMessage: 'Instances failed to join the kubernetes cluster' });
    // The old nodes were never cordoned: nothing was drained.
    expect(nodesOf(cluster, 'demo-ng').filter((n) => n.spec.unschedulable)).toHaveLength(0);
  });

  it('runs the workshop self-managed group as plain nodes with the lifecycle label and no EKS node group', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    const selfManaged = cluster.store.list('nodes').filter((n) => n.metadata.labels?.['node.kubernetes.io/lifecycle'] === 'self-managed');
    expect(selfManaged).toHaveLength(2);
    expect(selfManaged.every((n) => n.metadata.labels?.team === 'carts' && !n.metadata.labels?.['eks.amazonaws.com/nodegroup'])).toBe(true);
    expect([...cluster.nodegroups.keys()].some((name) => name.startsWith('default-selfmng'))).toBe(false);
    await t.clock.advance(30_000);
    const carts = cluster.store.list('pods', 'carts');
    expect(carts.every((p) => selfManaged.some((n) => n.metadata.name === p.spec.nodeName))).toBe(true);
  });
});

describe('node group create, delete and config in the simulator', () => {
  it('blue/green: green comes up ACTIVE, deleting blue waits on orders-pdb and finishes once orders has two replicas', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    await upgradeControlPlane(t, '1.26');
    const blue = cluster.nodegroups.get(BLUE)!;
    const green = createNodegroup(t.world, cluster, {
      clusterName: cluster.name,
      nodegroupName: 'green-mng-20250401153250959800000007',
      nodeRole: blue.nodeRole,
      subnets: blue.subnets,
      instanceTypes: blue.instanceTypes,
      amiType: 'AL2_x86_64',
      labels: blue.labels,
      taints: blue.taints,
      scalingConfig: { minSize: 1, maxSize: 2, desiredSize: 1 },
    });
    expect(green.status).toBe('CREATING');
    await t.advance(4 * 60_000);
    expect(green.status).toBe('ACTIVE');
    expect(nodesOf(cluster, green.name).map(kubelet)).toEqual(['v1.26.15-eks-59bf375']);

    deleteNodegroup(t.world, cluster, blue);
    expect(blue.status).toBe('DELETING');
    await t.advance(16 * 60_000);
    expect(cluster.nodegroups.has(BLUE)).toBe(true);
    expect(blue.healthIssues[0]).toMatchObject({ code: 'PodEvictionFailure' });
    expect(nodesOf(cluster, BLUE)[0].spec.unschedulable).toBe(true);

    cluster.store.mutate('deployments', 'orders', 'orders', (d) => (d.spec.replicas = 2));
    await t.advance(3 * 60_000);
    expect(cluster.nodegroups.has(BLUE)).toBe(false);
    expect(nodesOf(cluster, BLUE)).toHaveLength(0);
    const orders = cluster.store.list('pods', 'orders').filter((p) => p.metadata.labels?.['app.kubernetes.io/component'] === 'service');
    expect(orders.every((p) => p.status.phase === 'Running' && nodesOf(cluster, green.name).some((n) => n.metadata.name === p.spec.nodeName))).toBe(true);
  });

  it('scales a group out through UpdateNodegroupConfig and puts new labels on its nodes', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    const ng = cluster.nodegroups.get('demo-ng')!;
    const update = startNodegroupConfigUpdate(t.world, cluster, ng, {
      clusterName: 'demo',
      nodegroupName: 'demo-ng',
      scalingConfig: { desiredSize: 3 },
      labels: { addOrUpdateLabels: { tier: 'web' } },
    });
    await t.advance(3 * 60_000);
    expect(update.status).toBe('Successful');
    expect(ng.scaling.desiredSize).toBe(3);
    const nodes = nodesOf(cluster, 'demo-ng');
    expect(nodes).toHaveLength(3);
    expect(nodes.every((n) => n.metadata.labels?.tier === 'web' && ready(n))).toBe(true);
  });
});
