import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';
import { planJson } from '../../src/report/json-output.js';
import { amiIdFor, defaultAddonVersion, type SimServer } from '@eks-upgrade-bot/sim';
import { buildClusterStatus } from '../../src/report/cluster-status.js';
import { collectSnapshot, type SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { hopsBetweenText } from '../../src/cluster-reader/plan-request.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * The read path end to end through the real EKS/EC2/SSM SDKs and client-node against the simulator's `workshop`
 * scenario (eksworkshop-eksctl at 1.25 with every kind of compute): what `plan … --output json` must surface.
 */
const CLUSTER = 'eksworkshop-eksctl';
let sim: SimServer;
let sources: SnapshotSources;

async function planTo(to: string): Promise<UpgradePlan> {
  const snapshot = await collectSnapshot(sources, { name: CLUSTER, region: 'us-west-2', targetMinors: hopsBetweenText('1.25', to) });
  // Through JSON and back, as the CLI prints it.
  return JSON.parse(JSON.stringify(planJson(buildPlan(snapshot, to))));
}

beforeAll(async () => {
  sim = await startSim('workshop', { speed: 600 });
  sources = simSources(sim);
  await settled(sim, CLUSTER);
});
afterAll(async () => sim?.close());

describe('plan eksworkshop-eksctl --to 1.26 against the workshop scenario', () => {
  let plan: UpgradePlan;
  beforeAll(async () => {
    plan = await planTo('1.26');
  });
  const finding = (code: string, text: string) => plan.findings.find((f) => f.code === code && JSON.stringify(f).includes(text));

  it('is blocking, with one hop 1.25 → 1.26', () => {
    expect(plan).toMatchObject({ cluster: CLUSTER, from: '1.25', to: '1.26', blocking: true });
    expect(plan.hops.map((h) => [h.from, h.to])).toEqual([['1.25', '1.26']]);
  });

  it('surfaces the orders-pdb drain blocker with the fix', () => {
    const blocker = finding('K8S004', 'orders-pdb');
    expect(blocker).toMatchObject({ severity: 'error' });
    expect(blocker!.resources).toEqual(expect.arrayContaining(['deployment/orders/orders', 'pdb/orders/orders-pdb']));
    expect(blocker!.remedy).toContain('Scale orders to 2 replicas or it will block the drain');
  });

  it('lists the availability finding for orders (one replica behind minAvailable 1) with what the plan does to it', () => {
    const orders = plan.findings.find((f) => f.code === 'AVL001' && f.resources[0] === 'deployment/orders/orders');
    expect(orders?.title).toMatch(/^orders has 1 replica on ip-[\d-]+, which blue-mng-20250325023020754500000029's in-place update drains: it is unavailable until rescheduled/);
  });

  it('surfaces the custom-AMI node group and what the operator must supply', () => {
    const custom = finding('NG001', 'custom-20250401115802906700000007');
    expect(custom?.title).toContain('ami-0078a0f78fafda978');
    expect(custom?.remedy).toContain(amiIdFor('1.26', 'AL2'));
  });

  it('surfaces the deprecated autoscaling/v2beta2 HPA from the insight, with its replacement', () => {
    const hpa = finding('INS001', 'autoscaling/v2beta2');
    expect(hpa).toMatchObject({ severity: 'error' });
    expect(hpa!.resources).toContain('horizontalpodautoscaler/ui/ui');
    expect(hpa!.title).toContain('use autoscaling/v2');
  });

  it('updates coredns and kube-proxy to the versions the simulator lists as default for 1.26', () => {
    const coredns = defaultAddonVersion('coredns', '1.26')!;
    const proxy = defaultAddonVersion('kube-proxy', '1.26')!;
    expect(finding('ADD001', 'coredns')?.title).toContain(`→ ${coredns} (1.26)`);
    expect(finding('ADD001', 'kube-proxy')?.title).toContain(`→ ${proxy} (1.26)`);
    const addonSteps = plan.hops[0].steps.filter((s) => s.kind === 'addons').map((s) => [s.resource, s.from, s.to]);
    expect(addonSteps).toEqual([
      ['addon/coredns', 'v1.8.7-eksbuild.10', coredns],
      ['addon/kube-proxy', 'v1.25.16-eksbuild.8', proxy],
    ]);
  });

  it('surfaces the Fargate assets pods that need a restart', () => {
    expect(finding('FRG001', 'deployment/assets/assets')).toBeDefined();
    expect(plan.hops[0].steps.find((s) => s.kind === 'fargate')?.commands).toEqual([expect.stringContaining('kubectl rollout restart deployment assets -n assets')]);
  });

  it('surfaces the Karpenter EC2NodeClass pinned to a 1.25 AMI, naming the 1.26 AMI', () => {
    const pinned = finding('KAR002', 'ec2nodeclass/default');
    expect(pinned?.title).toContain('pins ami-0ee947a6f4880da75 (the 1.25 AMI)');
    expect(pinned?.title).toContain(amiIdFor('1.26', 'AL2023'));
  });

  it('surfaces the self-managed group, found through its Auto Scaling group and rolled by the job', () => {
    const group = finding('NG004', 'default-selfmng-2025032502302075740000002b');
    expect(group).toMatchObject({ severity: 'info', title: expect.stringContaining('is rolled by the job through its Auto Scaling group default-selfmng-2025032502302075740000002b') });
    expect(group?.remedy).toContain(amiIdFor('1.26', 'AL2'));
    // min 2, max 3, desired 2, no pending template versions, no protection: no ASG finding.
    expect(plan.findings.filter((f) => f.code.startsWith('ASG'))).toEqual([]);
    const step = plan.hops[0].steps.find((s) => s.kind === 'self-managed');
    expect(step).toMatchObject({ strategy: 'in-place' });
    expect(step?.manual).toBeFalsy();
  });

  it('orders the steps control plane → add-ons → data plane', () => {
    const phases = plan.hops[0].steps.map((s) => s.phase);
    const last = (phase: string) => phases.lastIndexOf(phase as never);
    expect(phases.indexOf('control-plane')).toBeGreaterThan(phases.indexOf('preflight'));
    expect(phases.indexOf('addons')).toBeGreaterThan(last('control-plane'));
    expect(phases.indexOf('data-plane')).toBeGreaterThan(last('addons'));
    expect(phases.at(-1)).toBe('verify');
    expect(plan.hops[0].steps.filter((s) => s.phase === 'data-plane').map((s) => s.kind)).toEqual([
      'managed-nodegroups', 'managed-nodegroups', 'managed-nodegroups', 'karpenter', 'self-managed', 'fargate',
    ]);
  });
});

describe('plan eksworkshop-eksctl --to 1.28', () => {
  it('has three hops, each with its control-plane step, and the data plane can wait for 1.28', async () => {
    const plan = await planTo('1.28');
    expect(plan.hops.map((h) => `${h.from}→${h.to}`)).toEqual(['1.25→1.26', '1.26→1.27', '1.27→1.28']);
    for (const hop of plan.hops) expect(hop.steps.filter((s) => s.kind === 'control-plane')).toHaveLength(1);
    // coredns moves through each minor's default (no step where the default stays the same).
    const defaults = ['1.26', '1.27', '1.28'].map((m) => defaultAddonVersion('coredns', m));
    const expected = defaults.map((version, i) => (i > 0 && version === defaults[i - 1] ? undefined : version));
    expect(plan.hops.map((h) => h.steps.find((s) => s.resource === 'addon/coredns')?.to)).toEqual(expected);
    expect(plan.incremental).toMatchObject({ possible: true, dataPlaneHops: ['1.28'] });
    expect(plan.hops[2].steps.find((s) => s.kind === 'karpenter')?.title).toContain(amiIdFor('1.28', 'AL2023'));
  });
});

describe('status of eksworkshop-eksctl', () => {
  it('shows every kind of compute with kubelets and skew, add-ons against 1.25 and 1.26, insights and support', async () => {
    const status = buildClusterStatus(await collectSnapshot(sources, { name: CLUSTER, region: 'us-west-2' }));
    expect(status).toMatchObject({ version: '1.25', platformVersion: 'eks.44', status: 'ACTIVE', problems: [] });
    expect(status.nodes.map((g) => g.computeType)).toEqual(['managed-nodegroup', 'managed-nodegroup', 'managed-nodegroup', 'karpenter', 'self-managed', 'fargate']);
    expect(status.nodes.every((g) => g.skew.withinPolicy && g.versions.every((v) => v.minor === '1.25'))).toBe(true);
    expect(status.addons.find((a) => a.name === 'coredns')).toMatchObject({ defaultForNext: defaultAddonVersion('coredns', '1.26'), nextMinorUpdate: 'required' });
    expect(status.support).toMatchObject({ phase: 'extended', upgradePolicy: 'EXTENDED', nextMinor: '1.26', nextOffered: true });
    expect(status.insights?.error).toBeGreaterThan(0);
  });
});
