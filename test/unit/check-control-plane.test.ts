import { describe, expect, it } from 'vitest';
import { checkControlPlane } from '../../src/planning/checks/control-plane-checks.js';
import { checkReadCoverage } from '../../src/planning/checks/read-coverage-check.js';
import { readFailed, readOk, type ClusterSnapshot } from '../../src/planning/cluster-snapshot.js';
import { codes, DAY, healthySnapshot, NOW } from './check-snapshot-fixture.js';

function withCluster(patch: Record<string, unknown>): ClusterSnapshot {
  const s = healthySnapshot();
  return { ...s, cluster: readOk({ ...(s.cluster as any).value, ...patch }) };
}

describe('control-plane checks (EKS0xx)', () => {
  it('a healthy cluster going one minor up has nothing to say', () => {
    expect(checkControlPlane(healthySnapshot(), '1.31')).toEqual([]);
  });

  it('EKS001: a cluster that is not ACTIVE blocks, saying its status', () => {
    const [finding] = checkControlPlane(withCluster({ status: 'FAILED' }), '1.31');
    expect(finding).toMatchObject({ code: 'EKS001', severity: 'error', resources: ['cluster/demo'] });
    expect(finding.title).toContain('FAILED');
  });

  it('EKS002: an update in progress blocks and names the update', () => {
    const s = { ...withCluster({ status: 'UPDATING' }), updates: readOk([{ id: 'u-1', type: 'VersionUpdate', status: 'InProgress', version: '1.31' }]) };
    const [finding] = checkControlPlane(s, '1.31');
    expect(finding).toMatchObject({ code: 'EKS002', severity: 'error', resources: ['update/u-1'] });
    expect(finding.title).toContain('VersionUpdate to 1.31');
    // UPDATING with no readable update still says another update runs.
    expect(codes(checkControlPlane(withCluster({ status: 'UPDATING' }), '1.31'))).toEqual(['EKS002:error']);
  });

  it('EKS003: a hop EKS does not offer blocks, listing what is offered', () => {
    const [finding] = checkControlPlane(healthySnapshot(), '1.34').filter((f) => f.code === 'EKS003');
    expect(finding.severity).toBe('error');
    expect(finding.title).toBe('EKS does not offer 1.34 in us-west-2 (offered: 1.29, 1.30, 1.31, 1.32, 1.33)');
    const s = healthySnapshot();
    (s.versions as any).value = (s.versions as any).value.map((v: any) => (v.version === '1.31' ? { ...v, support: 'unsupported' } : v));
    expect(checkControlPlane(s, '1.32').find((f) => f.code === 'EKS003')?.title).toContain('does not offer 1.31');
  });

  it('EKS004: more than one minor away becomes a multi-hop plan (info), one minor does not', () => {
    const [finding] = checkControlPlane(healthySnapshot(), '1.33');
    expect(finding).toMatchObject({ code: 'EKS004', severity: 'info' });
    expect(finding.title).toBe('1.30 → 1.33 takes 3 control-plane upgrades (1.31, 1.32, 1.33): EKS moves one minor at a time');
  });

  it('EKS005: each cluster health issue blocks', () => {
    const found = checkControlPlane(withCluster({ healthIssues: [{ code: 'Ec2SubnetNotFound', message: 'subnet-x is gone', resourceIds: ['subnet-x'] }] }), '1.31');
    expect(found).toEqual([expect.objectContaining({ code: 'EKS005', severity: 'error', resources: ['cluster/demo', 'subnet-x'] })]);
  });

  it('EKS006: extended support warns with the end date; standard support warns from 60 days before its end, not 61', () => {
    const s = healthySnapshot();
    const versions = (s.versions as any).value;
    versions[1] = { ...versions[1], support: 'extended', endOfExtendedSupport: NOW + 37 * DAY };
    const [extended] = checkControlPlane(s, '1.31');
    expect(extended.code).toBe('EKS006');
    expect(extended.title).toContain('extended support');
    expect(extended.title).toContain('37 days left');

    for (const [days, expected] of [[60, ['EKS006:warning']], [61, []]] as const) {
      const t = healthySnapshot();
      (t.versions as any).value[1].endOfStandardSupport = NOW + days * DAY;
      expect(codes(checkControlPlane(t, '1.31'))).toEqual(expected);
    }
  });

  it('EKS006 says a STANDARD upgrade policy means EKS upgrades the cluster itself', () => {
    const s = withCluster({ supportType: 'STANDARD' });
    (s.versions as any).value[1].endOfStandardSupport = NOW + 10 * DAY;
    expect(checkControlPlane(s, '1.31')[0].title).toContain('EKS upgrades the cluster itself');
  });

  it('EKS007: a target that is itself in extended support is worth knowing', () => {
    const s = healthySnapshot();
    (s.versions as any).value[2].support = 'extended';
    expect(codes(checkControlPlane(s, '1.31'))).toEqual(['EKS007:info']);
  });

  it('EKS090: unread areas are named with their reason, grouped by reason', () => {
    const s = healthySnapshot();
    const down = readFailed<never>('Connecting to the Kubernetes API of demo failed: ECONNREFUSED.');
    s.kube = { ...s.kube, nodes: down, pods: down };
    s.subnets = readFailed('DescribeSubnets for demo failed: UnauthorizedOperation.');
    const found = checkReadCoverage(s);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatchObject({ code: 'EKS090', severity: 'warning', resources: ['area/subnets'] });
    expect(found[1].title).toBe('Could not read nodes, pods: Connecting to the Kubernetes API of demo failed: ECONNREFUSED.; the checks that need them were skipped');
    expect(checkReadCoverage(healthySnapshot())).toEqual([]);
  });
});
