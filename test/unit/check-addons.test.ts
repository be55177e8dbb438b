import { describe, expect, it } from 'vitest';
import { addonPathFor, compareAddonVersions } from '../../src/planning/addon-version.js';
import { addonRoute, checkAddons } from '../../src/planning/checks/addon-checks.js';
import { readOk, type AddonInfo } from '../../src/planning/cluster-snapshot.js';
import { addon, codes, healthySnapshot } from './check-snapshot-fixture.js';

function withAddons(...addons: AddonInfo[]) {
  const s = healthySnapshot();
  s.addons = readOk(addons);
  return s;
}

describe('add-on versions', () => {
  it('compares eksbuild versions numerically', () => {
    expect(compareAddonVersions('v1.9.3-eksbuild.22', 'v1.10.1-eksbuild.1')).toBeLessThan(0);
    expect(compareAddonVersions('v1.9.3-eksbuild.22', 'v1.9.3-eksbuild.3')).toBeGreaterThan(0);
    expect(compareAddonVersions('v1.19.3-eksbuild.1', 'v1.19.3-eksbuild.1')).toBe(0);
  });

  it('steps the VPC CNI one minor at a time, through the newest build of each minor in between', () => {
    const cni = addon('vpc-cni', 'v1.15.5-eksbuild.1', {
      '1.30': ['v1.19.6-eksbuild.7', 'v1.18.6-eksbuild.1', 'v1.17.1-eksbuild.1', 'v1.16.4-eksbuild.2', 'v1.16.0-eksbuild.1', 'v1.15.5-eksbuild.1'],
      '1.31': ['v1.19.6-eksbuild.7', 'v1.18.6-eksbuild.1', 'v1.17.1-eksbuild.1', 'v1.16.4-eksbuild.2'],
    });
    expect(addonPathFor(cni, 'v1.15.5-eksbuild.1', '1.31')).toEqual(['v1.16.4-eksbuild.2', 'v1.17.1-eksbuild.1', 'v1.18.6-eksbuild.1', 'v1.19.6-eksbuild.7']);
    // Other add-ons jump straight to the default.
    const coredns = addon('coredns', 'v1.8.7-eksbuild.10', { '1.26': ['v1.9.3-eksbuild.22', 'v1.9.3-eksbuild.2'] });
    expect(addonPathFor(coredns, 'v1.8.7-eksbuild.10', '1.26')).toEqual(['v1.9.3-eksbuild.22']);
  });

  it('routes an add-on across hops, moving only when needed', () => {
    const coredns = addon('coredns', 'v1.9.3-eksbuild.22', {
      '1.26': ['v1.9.3-eksbuild.22'],
      '1.27': ['v1.10.1-eksbuild.18', 'v1.9.3-eksbuild.22'],
      '1.28': ['v1.10.1-eksbuild.18'],
    });
    expect(addonRoute(coredns, ['1.26', '1.27', '1.28']).hops).toEqual([
      { minor: '1.26', versions: [] },
      { minor: '1.27', versions: ['v1.10.1-eksbuild.18'] },
      { minor: '1.28', versions: [] },
    ]);
  });
});

describe('add-on checks (ADD0xx)', () => {
  it('add-ons at the defaults of the current and next minor need nothing', () => {
    const s = healthySnapshot();
    expect(codes(checkAddons(s, '1.31'))).toEqual(['ADD001:warning']); // kube-proxy tracks the minor
    expect(checkAddons(s, '1.31')[0].title).toBe('kube-proxy v1.30.9-eksbuild.3 is not compatible with 1.31: update v1.30.9-eksbuild.3 → v1.31.3-eksbuild.2 (1.31)');
  });

  it('ADD001: not compatible with the next minor → update to its default, with the command', () => {
    const [finding] = checkAddons(withAddons(addon('coredns', 'v1.8.7-eksbuild.10', { '1.30': ['v1.9.3-eksbuild.22', 'v1.8.7-eksbuild.10'], '1.31': ['v1.9.3-eksbuild.22'] })), '1.31');
    expect(finding).toMatchObject({ code: 'ADD001', severity: 'warning', resources: ['addon/coredns'] });
    expect(finding.remedy).toContain('--addon-version v1.9.3-eksbuild.22 --resolve-conflicts PRESERVE');
  });

  it('ADD002: compatible but behind the default is only information', () => {
    const found = checkAddons(withAddons(addon('coredns', 'v1.11.1-eksbuild.4', { '1.30': ['v1.11.3-eksbuild.1', 'v1.11.1-eksbuild.4'], '1.31': ['v1.11.3-eksbuild.1', 'v1.11.1-eksbuild.4'] })), '1.31');
    expect(codes(found)).toEqual(['ADD002:info']);
  });

  it('ADD003: a version EKS does not list for the current minor', () => {
    const found = checkAddons(withAddons(addon('coredns', 'v1.8.7-eksbuild.10', { '1.30': ['v1.11.3-eksbuild.1'], '1.31': ['v1.11.3-eksbuild.1'] })), '1.31');
    expect(codes(found)).toEqual(['ADD003:warning', 'ADD001:warning']);
  });

  it('ADD004: a VPC CNI more than one minor behind warns about the successive updates; one minor does not', () => {
    const catalog = { '1.30': ['v1.19.6-eksbuild.7', 'v1.18.6-eksbuild.1', 'v1.17.1-eksbuild.1'], '1.31': ['v1.19.6-eksbuild.7', 'v1.18.6-eksbuild.1'] };
    const far = checkAddons(withAddons(addon('vpc-cni', 'v1.17.1-eksbuild.1', catalog)), '1.31');
    expect(codes(far)).toEqual(['ADD001:warning', 'ADD004:warning']);
    expect(far[1].title).toBe('vpc-cni v1.17.1-eksbuild.1 is 2 minors behind v1.19.6-eksbuild.7; EKS updates the VPC CNI one minor at a time');
    expect(far[1].remedy).toContain('v1.17.1-eksbuild.1 → v1.18.6-eksbuild.1 → v1.19.6-eksbuild.7 (1.31)');
    const near = checkAddons(withAddons(addon('vpc-cni', 'v1.18.6-eksbuild.1', catalog)), '1.31');
    expect(codes(near)).toEqual(['ADD002:info']);
  });

  it('ADD005: a degraded add-on or one with health issues blocks', () => {
    const found = checkAddons(withAddons(addon('coredns', 'v1.11.3-eksbuild.1', { '1.30': ['v1.11.3-eksbuild.1'], '1.31': ['v1.11.3-eksbuild.1'] }, { status: 'DEGRADED', healthIssues: [{ code: 'InsufficientNumberOfReplicas', message: '0/2 ready', resourceIds: [] }] })), '1.31');
    expect(codes(found)).toEqual(['ADD005:error']);
    expect(found[0].title).toContain('InsufficientNumberOfReplicas');
  });

  it('ADD006: EKS offers no version at all for a hop minor', () => {
    const found = checkAddons(withAddons(addon('legacy-agent', 'v1.0.0-eksbuild.1', { '1.30': ['v1.0.0-eksbuild.1'], '1.31': [] })), '1.31');
    expect(codes(found)).toEqual(['ADD006:error']);
  });

  it('multi-hop: names the whole route with the minor each version is for', () => {
    const coredns = addon('coredns', 'v1.11.3-eksbuild.1', { '1.30': ['v1.11.3-eksbuild.1'], '1.31': ['v1.11.3-eksbuild.1'], '1.32': ['v1.11.4-eksbuild.2', 'v1.11.3-eksbuild.1'] });
    const [finding] = checkAddons(withAddons(coredns), '1.32');
    expect(finding.title).toBe('coredns v1.11.3-eksbuild.1 is behind the default: update v1.11.3-eksbuild.1 → v1.11.4-eksbuild.2 (1.32)');
  });
});
