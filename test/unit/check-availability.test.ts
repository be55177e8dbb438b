import { describe, expect, it } from 'vitest';
import { checkAvailability } from '../../src/planning/checks/availability-checks.js';
import { DEFAULT_POLICY, type PlanPolicy } from '../../src/planning/plan-policy.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { codes, deployment, deploymentPod, healthySnapshot, node, pdb, pod, withKube } from './check-snapshot-fixture.js';

const probe = { httpGet: { path: '/health', port: 8080 } };
const blueGreen: PlanPolicy = { ...DEFAULT_POLICY, nodegroup: () => ({ strategy: 'blue-green' }) };

function withTemplate(d: KubeObject, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject {
  return { ...d, spec: { ...d.spec, ...extra, template: { spec: { containers: [{ name: d.metadata.name, readinessProbe: probe }], ...spec } } } };
}

/** checkout: `replicas` pods on the given nodes, with a readiness probe, minReadySeconds 10 and a PDB unless told. */
function checkout(nodes: string[], opts: { pdb?: boolean; probe?: boolean; minReady?: number } = {}) {
  let s = healthySnapshot();
  const pods = nodes.map((n, i) => deploymentPod('shop', 'checkout', i, n, { app: 'checkout' }));
  const d = withTemplate(deployment('shop', 'checkout', nodes.length), opts.probe === false ? { containers: [{ name: 'checkout' }] } : {}, { minReadySeconds: opts.minReady ?? 10 });
  s = withKube(s, 'pods', pods);
  s = withKube(s, 'deployments', [d]);
  return withKube(s, 'pdbs', opts.pdb === false ? [] : [pdb('shop', 'checkout-pdb', { app: 'checkout' }, { maxUnavailable: 1 }, 1)]);
}

describe('workload availability checks (AVL001–AVL007)', () => {
  it('a spread, probed, PDB-guarded workload is fine', () => {
    expect(checkAvailability(checkout(['ip-10-0-1-1', 'ip-10-0-2-2']), '1.31', DEFAULT_POLICY)).toEqual([]);
  });

  it('AVL001: one replica says what this plan does to its node', () => {
    const [finding] = checkAvailability(checkout(['ip-10-0-1-1']), '1.31', blueGreen);
    expect(finding).toMatchObject({ code: 'AVL001', severity: 'warning' });
    expect(finding.title).toBe("checkout has 1 replica on ip-10-0-1-1, which ng-a's blue/green replacement drains: it is unavailable until rescheduled (Deployment shop/checkout, minimum 2)");
    expect(finding.resources).toEqual(['deployment/shop/checkout', 'pod/shop/checkout-5b97f-0']);
  });

  it('AVL001 follows checks.replicaMinimum and checks.ignoreNamespaces', () => {
    const s = checkout(['ip-10-0-1-1', 'ip-10-0-2-2']);
    const strict: PlanPolicy = { ...DEFAULT_POLICY, checks: { replicaMinimum: 3, ignoreNamespaces: [], helmReleases: false, insightsMaxAgeHours: 12, insightsRefreshWaitSeconds: 60 } };
    expect(codes(checkAvailability(s, '1.31', strict))).toEqual(['AVL001:warning']);
    expect(checkAvailability(checkout(['ip-10-0-1-1']), '1.31', { ...strict, checks: { ...strict.checks!, ignoreNamespaces: ['shop'] } })).toEqual([]);
  });

  it('nodes already at the target are not replaced: nothing to say', () => {
    const s = withKube(checkout(['ip-10-0-1-1']), 'nodes', [node('ip-10-0-1-1', '1.31'), node('ip-10-0-2-2', '1.31')]);
    expect(checkAvailability(s, '1.31', DEFAULT_POLICY)).toEqual([]);
  });

  it('AVL002: several replicas and no PDB', () => {
    const [finding] = checkAvailability(checkout(['ip-10-0-1-1', 'ip-10-0-2-2'], { pdb: false }), '1.31', DEFAULT_POLICY);
    expect(finding.code).toBe('AVL002');
    expect(finding.title).toBe("Deployment shop/checkout has 2 replicas and no PodDisruptionBudget: its pods are on ip-10-0-1-1, ip-10-0-2-2, which ng-a's in-place update drains, and the drain may evict all of them at once");
    expect(finding.remedy).toContain('kubectl create pdb checkout -n shop --selector=app=checkout --max-unavailable=1');
  });

  it('AVL003: all ready replicas on one node, or in one zone', () => {
    expect(codes(checkAvailability(checkout(['ip-10-0-1-1', 'ip-10-0-1-1']), '1.31', DEFAULT_POLICY))).toEqual(['AVL003:warning']);
    let s = checkout(['ip-10-0-1-1', 'ip-10-0-3-3']);
    s = withKube(s, 'nodes', [...(s.kube.nodes as any).value, node('ip-10-0-3-3', '1.30')]);
    const [zone] = checkAvailability(s, '1.31', DEFAULT_POLICY);
    expect(zone.title).toMatch(/run in one zone, us-west-2a/);
  });

  it('AVL004: no readiness probe; AVL005: minReadySeconds 0 behind a PDB', () => {
    expect(codes(checkAvailability(checkout(['ip-10-0-1-1', 'ip-10-0-2-2'], { probe: false }), '1.31', DEFAULT_POLICY))).toEqual(['AVL004:warning']);
    const [finding] = checkAvailability(checkout(['ip-10-0-1-1', 'ip-10-0-2-2'], { minReady: 0 }), '1.31', DEFAULT_POLICY);
    expect(finding.code).toBe('AVL005');
    expect(finding.resources).toContain('pdb/shop/checkout-pdb');
  });

  it('AVL006: a StatefulSet with terminationGracePeriodSeconds 0', () => {
    let s = healthySnapshot();
    const sts = withTemplate({ metadata: { name: 'db', namespace: 'data' }, spec: { replicas: 2, selector: { matchLabels: { app: 'db' } } } } as KubeObject, { terminationGracePeriodSeconds: 0 }, { minReadySeconds: 5 });
    s = withKube(s, 'statefulsets', [sts]);
    s = withKube(s, 'pods', [0, 1].map((i) => pod('data', `db-${i}`, i === 0 ? 'ip-10-0-1-1' : 'ip-10-0-2-2', { app: 'db' }, { kind: 'StatefulSet', name: 'db' })));
    s = withKube(s, 'pdbs', [pdb('data', 'db', { app: 'db' }, { maxUnavailable: 1 }, 1)]);
    expect(codes(checkAvailability(s, '1.31', DEFAULT_POLICY))).toEqual(['AVL006:warning']);
  });

  it('a ReplicaSet without a Deployment is a workload of its own', () => {
    let s = healthySnapshot();
    s = withKube(s, 'replicasets', [withTemplate({ metadata: { name: 'legacy', namespace: 'old' }, spec: { replicas: 1 } } as KubeObject, {})]);
    s = withKube(s, 'pods', [pod('old', 'legacy-x1', 'ip-10-0-1-1', { app: 'legacy' }, { kind: 'ReplicaSet', name: 'legacy' })]);
    s = withKube(s, 'deployments', []);
    s = withKube(s, 'pdbs', []);
    const [finding] = checkAvailability(s, '1.31', DEFAULT_POLICY);
    expect(finding.resources[0]).toBe('replicaset/old/legacy');
  });

  it('AVL007: pods mounting the Docker socket, DaemonSets included', () => {
    let s = healthySnapshot();
    const volumes = [{ name: 'docker', hostPath: { path: '/var/run/docker.sock' } }];
    s = withKube(s, 'pods', [
      ...(s.kube.pods as any).value,
      pod('monitoring', 'agent-a', 'ip-10-0-1-1', { app: 'agent' }, { kind: 'DaemonSet', name: 'agent' }, { spec: { volumes } }),
      pod('monitoring', 'agent-b', 'ip-10-0-2-2', { app: 'agent' }, { kind: 'DaemonSet', name: 'agent' }, { spec: { volumes } }),
    ]);
    const findings = checkAvailability(s, '1.31', DEFAULT_POLICY).filter((f) => f.code === 'AVL007');
    expect(findings).toHaveLength(1);
    expect(findings[0].resources[0]).toBe('daemonset/monitoring/agent');
    expect(findings[0].title).toMatch(/mounts \/var\/run\/docker\.sock \(2 pods on ip-10-0-1-1, ip-10-0-2-2/);
  });
});
