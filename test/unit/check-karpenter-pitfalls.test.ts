import { describe, expect, it } from 'vitest';
import { checkKarpenterPitfalls, karpenterDurationMs } from '../../src/planning/checks/karpenter/karpenter-pitfall-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { codes, deploymentPod, healthySnapshot, node, NOW, pdb, withKube } from './check-snapshot-fixture.js';

const controller = (tag: string): KubeObject =>
  ({ metadata: { name: 'karpenter', namespace: 'kube-system' }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'controller', image: `public.ecr.aws/karpenter/controller:${tag}` }] } } } }) as KubeObject;

function withPool(spec: Record<string, unknown> = {}, createdHoursAgo = 2) {
  let s = healthySnapshot();
  const created = new Date(NOW - createdHoursAgo * 3600_000).toISOString();
  s = withKube(s, 'nodes', [node('karp-1', '1.30', { 'karpenter.sh/nodepool': 'default' }, { metadata: { creationTimestamp: created } as any })]);
  s.kube = { ...s.kube, karpenter: readOk({ nodePools: [{ metadata: { name: 'default' }, spec: { template: { spec: { nodeClassRef: { name: 'default' }, expireAfter: '720h', ...spec } } } }], nodeClaims: [], nodeClasses: [] }) };
  return s;
}

describe('Karpenter pitfalls (KAR007–KAR009)', () => {
  it('parses Karpenter durations', () => {
    expect(karpenterDurationMs('720h')).toBe(720 * 3600_000);
    expect(karpenterDurationMs('1h30m')).toBe(90 * 60_000);
    expect(karpenterDurationMs('Never')).toBeUndefined();
    expect(karpenterDurationMs('soon')).toBeUndefined();
  });

  it('KAR007: a controller older than the matrix asks for a minor on the way is an error', () => {
    const s = withKube(healthySnapshot(), 'deployments', [controller('0.36.2')]);
    const [finding] = checkKarpenterPitfalls(s, '1.31');
    expect(finding).toMatchObject({ code: 'KAR007', severity: 'error', resources: ['deployment/kube-system/karpenter'] });
    expect(finding.title).toBe('Karpenter 0.36.2 (deployment/kube-system/karpenter) does not support Kubernetes 1.31: its compatibility matrix needs 1.0.5 or later');
    expect(checkKarpenterPitfalls(withKube(healthySnapshot(), 'deployments', [controller('1.0.5')]), '1.31')).toEqual([]);
  });

  it('KAR008: no terminationGracePeriod while do-not-disrupt pods or a PDB allowing nothing hold the pool', () => {
    let s = withPool();
    s = withKube(s, 'pods', [deploymentPod('batch', 'job', 1, 'karp-1', { app: 'job' }, { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } })]);
    expect(codes(checkKarpenterPitfalls(s, '1.31'))).toEqual(['KAR008:warning']);
    const guarded = withKube(withKube(withPool(), 'pods', [deploymentPod('shop', 'db', 1, 'karp-1', { app: 'db' })]), 'pdbs', [pdb('shop', 'db', { app: 'db' }, { minAvailable: 1 }, 0)]);
    expect(checkKarpenterPitfalls(guarded, '1.31')[0].title).toBe('NodePool default has no terminationGracePeriod while PDB shop/db allowing 0 disruptions: its drifted nodes would wait for them forever');
    expect(checkKarpenterPitfalls(withKube(withPool({ terminationGracePeriod: '24h' }), 'pods', (s.kube.pods as any).value), '1.31')).toEqual([]);
  });

  it('KAR009: expireAfter that replaces nodes within a day', () => {
    expect(codes(checkKarpenterPitfalls(withPool({ expireAfter: '12h' }), '1.31'))).toEqual(['KAR009:warning']);
    expect(checkKarpenterPitfalls(withPool({ expireAfter: '720h' }), '1.31')).toEqual([]);
    expect(checkKarpenterPitfalls(withPool({ expireAfter: 'Never' }), '1.31')).toEqual([]);
    expect(codes(checkKarpenterPitfalls(withPool({}, 700), '1.31'))).toEqual(['KAR009:warning']);
  });
});
