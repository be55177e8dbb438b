import { describe, expect, it } from 'vitest';
import { compatibleAddonVersions, defaultAddonVersion } from '../../../src/sim/aws/eks/addon-catalog.js';
import { startAddonUpdate } from '../../../src/sim/aws/eks/addon-update.js';
import { startClusterVersionUpdate } from '../../../src/sim/aws/eks/cluster-update.js';
import { computeInsights } from '../../../src/sim/aws/eks/insights.js';
import { useWorld } from './use-world.js';
import { awsError } from './aws-error-of.js';

/** Add-on updates and upgrade insights of the simulated EKS, on a manual clock. */
const world = useWorld();

describe('the add-on catalog', () => {
  it('offers the workshop versions with the defaults the seed shows', () => {
    expect(defaultAddonVersion('coredns', '1.26')).toBe('v1.9.3-eksbuild.22');
    expect(defaultAddonVersion('kube-proxy', '1.26')).toBe('v1.26.15-eksbuild.24');
    expect(defaultAddonVersion('kube-proxy', '1.25')).toBe('v1.25.16-eksbuild.8');
    // vpc-cni and the EBS CSI driver were already the newest for 1.25/1.26 in the workshop.
    expect(compatibleAddonVersions('vpc-cni', '1.26')[0].addonVersion).toBe('v1.19.3-eksbuild.1');
    expect(compatibleAddonVersions('aws-ebs-csi-driver', '1.26')[0].addonVersion).toBe('v1.41.0-eksbuild.1');
    expect(compatibleAddonVersions('coredns', '1.26').map((v) => v.addonVersion)).toContain('v1.9.3-eksbuild.21');
  });
});

describe('UpdateAddon in the simulator', () => {
  it('moves coredns to the new version after the update time and rolls its Deployment image', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    startClusterVersionUpdate(t.world, cluster, '1.26');
    await t.clock.advance(10 * 60_000);
    const update = startAddonUpdate(t.world, cluster, 'coredns', { addonVersion: 'v1.9.3-eksbuild.22', resolveConflicts: 'PRESERVE' });
    expect(update).toMatchObject({ type: 'AddonUpdate', status: 'InProgress', scope: { addonName: 'coredns' } });
    expect(cluster.addons.get('coredns')?.status).toBe('UPDATING');
    await t.clock.advance(60_000);
    expect(update.status).toBe('Successful');
    expect(cluster.addons.get('coredns')).toMatchObject({ status: 'ACTIVE', version: 'v1.9.3-eksbuild.22' });
    const image = cluster.store.get('deployments', 'coredns', 'kube-system')?.spec.template.spec.containers[0].image;
    expect(image).toBe('602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/coredns:v1.9.3-eksbuild.22');
  });

  it('lets the VPC CNI move only one minor version per update', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    expect(awsError(() => startAddonUpdate(t.world, cluster, 'vpc-cni', { addonVersion: 'v1.20.4-eksbuild.2' }))).toMatchObject({
      type: 'InvalidParameterException',
      message: 'Updating VPC-CNI can only go up or down 1 minor version at a time',
    });
    const update = startAddonUpdate(t.world, cluster, 'vpc-cni', { addonVersion: 'v1.19.6-eksbuild.7' });
    await t.clock.advance(60_000);
    expect(update.status).toBe('Successful');
    expect(startAddonUpdate(t.world, cluster, 'vpc-cni', { addonVersion: 'v1.20.4-eksbuild.2' }).status).toBe('InProgress');
  });

  it('refuses versions the cluster cannot run, unknown add-ons, and a second update in flight', async () => {
    const t = await world('demo');
    const cluster = t.cluster();
    expect(awsError(() => startAddonUpdate(t.world, cluster, 'coredns', { addonVersion: 'v1.8.7-eksbuild.10' })).type).toBe('InvalidParameterException');
    expect(awsError(() => startAddonUpdate(t.world, cluster, 'aws-efs-csi-driver', { addonVersion: 'v2.1.9-eksbuild.1' }))).toMatchObject({ status: 404, type: 'ResourceNotFoundException' });
    startAddonUpdate(t.world, cluster, 'coredns', { addonVersion: 'v1.11.3-eksbuild.10' });
    expect(awsError(() => startAddonUpdate(t.world, cluster, 'coredns', { addonVersion: 'v1.11.3-eksbuild.9' })).status).toBe(409);
  });
});

describe('upgrade insights in the simulator', () => {
  it('reports the HPA still on autoscaling/v2beta2 as an ERROR for 1.26 while the cluster is at 1.25', async () => {
    const t = await world('workshop', { karpenter: false });
    const insights = computeInsights(t.world, t.cluster());
    const deprecated = insights.find((i) => i.name === 'Deprecated APIs removed in Kubernetes v1.26')!;
    expect(deprecated).toMatchObject({ category: 'UPGRADE_READINESS', kubernetesVersion: '1.26', insightStatus: { status: 'ERROR' } });
    expect(deprecated.categorySpecificSummary.deprecationDetails?.[0]).toMatchObject({
      usage: '/apis/autoscaling/v2beta2/horizontalpodautoscalers',
      replacedWith: '/apis/autoscaling/v2/horizontalpodautoscalers',
      stopServingVersion: '1.26',
    });
    expect(deprecated.resources[0].kubernetesResourceUri).toBe('/apis/autoscaling/v2beta2/namespaces/ui/horizontalpodautoscalers/ui');
    expect(insights.find((i) => i.name === 'Kubelet version skew')?.insightStatus.status).toBe('PASSING');
  });

  it('clears the deprecated-API insight once the HPA is re-applied with autoscaling/v2', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    cluster.store.mutate('horizontalpodautoscalers', 'ui', 'ui', (hpa) => {
      const applied = JSON.parse(hpa.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']);
      hpa.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'] = JSON.stringify({ ...applied, apiVersion: 'autoscaling/v2' });
    });
    await t.clock.advance(60_000);
    const deprecated = computeInsights(t.world, cluster).find((i) => i.name.startsWith('Deprecated APIs'))!;
    expect(deprecated.insightStatus.status).toBe('PASSING');
    expect(deprecated.lastTransitionTime).toBe(t.clock.now());
  });

  it('turns kubelet skew to ERROR when nodes would fall more minors behind than allowed, and checks add-ons for the next version', async () => {
    const t = await world('workshop', { karpenter: false });
    const cluster = t.cluster();
    // 1.25 → 1.26 → 1.27: nodes at 1.25 are two minors behind 1.27 (allowed) — one more hop is not.
    for (const version of ['1.26', '1.27']) {
      startClusterVersionUpdate(t.world, cluster, version);
      await t.clock.advance(10 * 60_000);
    }
    const insights = computeInsights(t.world, cluster);
    const skew = insights.find((i) => i.name === 'Kubelet version skew')!;
    expect(skew.kubernetesVersion).toBe('1.28');
    // 1.28 allows three minors of kubelet skew, so 1.25 kubelets are at the limit.
    expect(skew.insightStatus.status).toBe('WARNING');
    expect(skew.resources.some((r) => r.kubernetesResourceUri?.startsWith('/api/v1/nodes/'))).toBe(true);
    const addons = insights.find((i) => i.name === 'EKS add-on version compatibility')!;
    expect(addons.insightStatus.status).toBe('ERROR');
    expect(addons.categorySpecificSummary.addonCompatibilityDetails?.map((d) => d.name)).toContain('coredns');
  });
});
