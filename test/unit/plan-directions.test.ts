import { describe, expect, it } from 'vitest';
import { buildPlan, buildRollbackPlan } from '../../src/planning/planner/build-plan.js';
import { readOk, type ClusterSnapshot } from '../../src/planning/cluster-snapshot.js';
import { jobSteps } from '../../src/planning/planner/job-steps.js';
import type { RollbackPreflight } from '../../src/planning/rollback-preflight.js';
import { addon, mixedCluster, node, nodegroup } from './check-snapshot-fixture.js';

/**
 * One planner, two directions (build-plan.ts with direction.ts): each direction's lines are written from structured
 * data in its own words, never by editing the other direction's sentence, and the actions carry what they name
 * (alias, pools, AMI id) so nothing reads it back out of a title or a reason.
 */
const UPGRADED_AT = Date.parse('2025-06-13T00:00:00Z');
const preflight: RollbackPreflight = { findings: [], window: { updateId: 'u-131', version: '1.31', upgradedAt: UPGRADED_AT, until: UPGRADED_AT + 7 * 24 * 3600_000 } };

/** The cluster after an upgrade to 1.31: control plane, node groups and nodes at 1.31, kube-proxy at its 1.31 build. */
function upgraded(snapshot: ClusterSnapshot): ClusterSnapshot {
  const s = structuredClone(snapshot);
  s.cluster = readOk({ ...(s.cluster.ok ? s.cluster.value : ({} as never)), version: '1.31' });
  s.kube.nodes = readOk((s.kube.nodes.ok ? s.kube.nodes.value : []).map((n) => ({ ...n, status: { ...n.status, nodeInfo: { ...n.status!.nodeInfo, kubeletVersion: String(n.status!.nodeInfo.kubeletVersion).replace('1.30', '1.31') } } })));
  s.nodegroups = readOk((s.nodegroups.ok ? s.nodegroups.value : []).map((g) => ({ ...g, version: '1.31' })));
  s.addons = readOk([addon('kube-proxy', 'v1.31.3-eksbuild.2', { '1.30': ['v1.30.9-eksbuild.3'], '1.31': ['v1.31.3-eksbuild.2'] })]);
  return s;
}

function withAliasClass(snapshot: ClusterSnapshot, alias: string): ClusterSnapshot {
  const karpenter = snapshot.kube.karpenter.ok ? snapshot.kube.karpenter.value! : ({} as never);
  return { ...snapshot, kube: { ...snapshot.kube, karpenter: readOk({ ...karpenter, nodeClasses: [{ metadata: { name: 'default' }, spec: { amiFamily: 'AL2023', amiSelectorTerms: [{ alias }] } }] }) } };
}

describe('one planner, two directions', () => {
  it('words a rollback line from its data: a node group named with "to" keeps its name, the line says "back to"', () => {
    const s = mixedCluster();
    s.nodegroups = readOk([nodegroup('ship-to-store')]);
    s.kube.nodes = readOk([node('ip-1', '1.30', { 'eks.amazonaws.com/nodegroup': 'ship-to-store' })]);
    const plan = buildRollbackPlan(upgraded(s), '1.30', preflight, { timeoutMinutes: 30 });
    const titles = plan.hops[0].steps.map((step) => step.title);
    expect(titles).toContain('Update node group ship-to-store in place back to 1.30 (1 node, 1 at a time)');
    expect(buildPlan(s, '1.31').hops[0].steps.map((step) => step.title)).toContain('Update node group ship-to-store in place to 1.31 (1 node, 1 at a time)');
  });

  it('a class on an alias: the upgrade follows it, the rollback pins it back; both actions carry the alias and the pools', () => {
    const s = withAliasClass(mixedCluster(), 'al2023@latest');
    const up = buildPlan(s, '1.31').hops[0].steps.find((step) => step.kind === 'karpenter')!;
    expect(up.actions).toEqual([expect.objectContaining({ action: 'follow-alias', alias: 'al2023@latest', pools: ['default'] })]);
    const back = buildRollbackPlan(upgraded(s), '1.30', preflight, { timeoutMinutes: 30 }).hops[0].steps.find((step) => step.kind === 'karpenter')!;
    expect(back.title).toBe('Pin EC2NodeClass default (alias al2023@latest) to the 1.30 AMI and drift NodePool default back at nodes: "1"; the alias goes back on after the control plane');
    expect(back.actions).toEqual([expect.objectContaining({ resource: 'ec2nodeclass/default', action: 'pin-ami', alias: 'al2023@latest', pools: ['default'] })]);
    // A rollback asks once, at its gate: no data-plane question, no budget hold.
    expect(back.gate).toBeUndefined();
  });

  it('a pinned class: the action names the AMI id the job points it at', () => {
    const line = buildPlan(mixedCluster(), '1.31').hops[0].steps.find((step) => step.kind === 'karpenter')!;
    expect(line.actions).toEqual([expect.objectContaining({ action: 'pin-ami', amiId: 'ami-0131', pools: ['default'] })]);
  });

  it('the control-plane line comes from the control-plane decider: an update already under way is one the job follows', () => {
    const s = mixedCluster();
    s.updates = readOk([{ id: 'u-131', type: 'VersionUpdate', status: 'InProgress', version: '1.31' }]);
    const line = buildPlan(s, '1.31').hops[0].steps.find((step) => step.kind === 'control-plane')!;
    expect(line.actions[0]).toMatchObject({ action: 'update-control-plane', reason: expect.stringMatching(/\(u-131\) is already in progress; following it instead of starting another/) });
    const quiet = buildPlan(mixedCluster(), '1.31').hops[0].steps.find((step) => step.kind === 'control-plane')!;
    expect(quiet.actions[0].reason).toBe('EKS moves the control plane one minor per update: 1.30 → 1.31');
  });

  it('one job-step builder: the rollback job runs the rollback plan in its order and words', () => {
    const plan = buildRollbackPlan(upgraded(mixedCluster()), '1.30', preflight, { timeoutMinutes: 30 });
    const { steps } = jobSteps({ cluster: 'demo', from: '1.31', to: '1.30', direction: 'rollback', plan });
    expect(steps.map((step) => step.title)).toEqual([
      'rollback preflight for 1.30',
      'managed node groups back to 1.30',
      'Karpenter nodes back to 1.30',
      'self-managed node groups back to 1.30',
      'add-ons not compatible with 1.30 back to its defaults',
      'approval: roll the control plane of demo back to 1.30',
      'control plane back to 1.30',
      'Fargate workloads restarted at 1.30',
      'verify 1.30',
    ]);
    expect(() => jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', direction: 'rollback', plan })).toThrow(/exactly one minor/);
  });
});
