import { describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { buildPlan, PlanRequestError } from '../../src/planning/planner/build-plan.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { DEFAULT_POLICY, policyFromConfig } from '../../src/planning/plan-policy.js';
import { addon, healthySnapshot, mixedCluster } from './check-snapshot-fixture.js';

const clusters = parseClustersConfig({
  clusters: [
    {
      name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'],
      karpenter: { upgradeBudget: '2' }, nodegroups: { orders: { strategy: 'blue-green' } }, addons: { resolveConflicts: 'OVERWRITE' },
    },
  ],
});

describe('buildPlan', () => {
  it('one hop: preflight, gate, control plane, add-ons, data plane per compute, verify — in that order', () => {
    const plan = buildPlan(mixedCluster(), '1.31');
    expect(plan).toMatchObject({ cluster: 'demo', from: '1.30', to: '1.31', blocking: false, policySource: 'defaults' });
    expect(plan.hops).toHaveLength(1);
    const kinds = plan.hops[0].steps.map((s) => `${s.kind}${s.resource ? ` ${s.resource}` : ''}`);
    expect(kinds).toEqual([
      'preflight cluster/demo',
      'gate cluster/demo',
      'control-plane cluster/demo',
      'addons addon/kube-proxy',
      'managed-nodegroups nodegroup/ng-a',
      'managed-nodegroups nodegroup/orders',
      'karpenter ec2nodeclass/default',
      'self-managed selfmanaged/carts',
      'fargate fargate',
      'verify cluster/demo',
    ]);
    const phases = plan.hops[0].steps.map((s) => s.phase);
    expect(phases.indexOf('control-plane')).toBeLessThan(phases.indexOf('addons'));
    expect(phases.lastIndexOf('addons')).toBeLessThan(phases.indexOf('data-plane'));
    expect(plan.estimateMinutes).toBe(plan.hops[0].estimateMinutes);
  });

  it('add-on steps go from → to with the configured resolveConflicts; gates and manual steps are marked', () => {
    const plan = buildPlan(mixedCluster(), '1.31', policyFromConfig(clusters.clusters[0]));
    const steps = plan.hops[0].steps;
    const proxy = steps.find((s) => s.kind === 'addons')!;
    expect(proxy).toMatchObject({ from: 'v1.30.9-eksbuild.3', to: 'v1.31.3-eksbuild.2', title: 'Update add-on kube-proxy v1.30.9-eksbuild.3 → v1.31.3-eksbuild.2' });
    expect(proxy.commands[0]).toContain('--resolve-conflicts OVERWRITE');
    expect(steps.find((s) => s.kind === 'gate')?.gate).toBe('Upgrade the control plane of demo to 1.31?');
    // Issue 13: the job rolls self-managed groups itself (one node at a time by default), no manual step.
    const selfManaged = steps.find((s) => s.kind === 'self-managed')!;
    expect(selfManaged).toMatchObject({ strategy: 'in-place' });
    expect(selfManaged.manual).toBeFalsy();
    expect(selfManaged.title).toMatch(/then nodes replaced one at a time$/);
    // The plan names the Auto Scaling group holding the nodes, as the step acts on it.
    expect(selfManaged.actions).toEqual([expect.objectContaining({ resource: 'asg/carts', action: 'roll-self-managed', to: '1.31' })]);
    // Read without Auto Scaling, the plan names no group to roll: the job reports it for a person.
    const unread = { ...mixedCluster(), autoScalingGroups: undefined };
    const manual = buildPlan(unread, '1.31', policyFromConfig(clusters.clusters[0])).hops[0].steps.find((s) => s.kind === 'self-managed')!;
    expect(manual).toMatchObject({ manual: true, actions: [{ resource: 'selfmanaged/carts', action: 'report-manual' }] });
    expect(plan.policySource).toBe('clusters.yaml');
  });

  it('uses each node group strategy from clusters.yaml and the Karpenter upgrade budget', () => {
    const steps = buildPlan(mixedCluster(), '1.31', policyFromConfig(clusters.clusters[0])).hops[0].steps;
    expect(steps.find((s) => s.resource === 'nodegroup/ng-a')?.strategy).toBe('in-place');
    const orders = steps.find((s) => s.resource === 'nodegroup/orders')!;
    expect(orders.strategy).toBe('blue-green');
    expect(orders.gate).toBe('Delete blue node group orders (1 node) now that its 1.31 clone is Ready?');
    const karpenter = steps.find((s) => s.kind === 'karpenter')!;
    expect(karpenter.title).toBe('Point EC2NodeClass default at ami-0131 and drift NodePool default at nodes: "2"');
    expect(karpenter.details[1]).toBe('Budgets now: default: "10%"; set to nodes: "2" for the drift, restored afterwards.');
    expect(karpenter.commands).toContain(`kubectl patch ec2nodeclass default --type merge -p '{"spec":{"amiSelectorTerms":[{"id":"ami-0131"}]}}'`);
  });

  it('restarts the Fargate workloads in the data plane', () => {
    const fargate = buildPlan(mixedCluster(), '1.31').hops[0].steps.find((s) => s.kind === 'fargate')!;
    expect(fargate).toMatchObject({ strategy: 'rollout-restart', commands: ['kubectl rollout restart deployment assets -n assets && kubectl rollout status deployment assets -n assets'] });
  });

  it('multi-hop: one hop per minor, each with its own gate and control-plane step; the VPC CNI is stepped one minor per update', () => {
    const s = mixedCluster();
    s.addons = readOk([
      addon('vpc-cni', 'v1.17.1-eksbuild.1', {
        '1.30': ['v1.17.1-eksbuild.1'],
        '1.31': ['v1.18.6-eksbuild.1', 'v1.17.1-eksbuild.1'],
        '1.32': ['v1.19.6-eksbuild.7', 'v1.18.6-eksbuild.1'],
      }),
    ]);
    const plan = buildPlan(s, '1.32');
    expect(plan.hops.map((h) => `${h.from}→${h.to}`)).toEqual(['1.30→1.31', '1.31→1.32']);
    for (const hop of plan.hops) expect(hop.steps.filter((st) => st.kind === 'control-plane' || st.kind === 'gate')).toHaveLength(2);
    const cni = plan.hops.flatMap((h) => h.steps.filter((st) => st.kind === 'addons').map((st) => `${h.to}: ${st.from} → ${st.to}`));
    expect(cni).toEqual(['1.31: v1.17.1-eksbuild.1 → v1.18.6-eksbuild.1', '1.32: v1.18.6-eksbuild.1 → v1.19.6-eksbuild.7']);
    // The second hop's data plane starts where the first left it.
    expect(plan.hops[1].steps.find((st) => st.resource === 'nodegroup/ng-a')).toMatchObject({ from: '1.31', to: '1.32' });
    expect(plan.hops[1].steps.find((st) => st.kind === 'karpenter')?.title).toContain('ami-0132');
  });

  it('a blocking finding makes the plan blocking; the first preflight names the blocking codes', () => {
    const s = mixedCluster();
    s.cluster = readOk({ ...(s.cluster as any).value, status: 'FAILED' });
    const plan = buildPlan(s, '1.31');
    expect(plan.blocking).toBe(true);
    expect(plan.hops[0].steps[0].title).toBe('Preflight for 1.30 → 1.31: 1 blocking finding (EKS001)');
  });

  it('refuses a target that is not newer, and a cluster that could not be read', () => {
    expect(() => buildPlan(healthySnapshot(), '1.30')).toThrow(new PlanRequestError('demo is already at 1.30; there is nothing to plan (give --to a newer minor)'));
    expect(() => buildPlan(healthySnapshot(), '1.29')).toThrow(/not newer than demo's 1.30; EKS upgrades only move forward/);
    const unread = { ...healthySnapshot(), cluster: { ok: false as const, error: 'DescribeCluster failed: AccessDenied' } };
    expect(() => buildPlan(unread, '1.31', DEFAULT_POLICY)).toThrow(/cannot plan demo: DescribeCluster failed/);
  });
});
