import { describe, expect, it } from 'vitest';
import { checkSubnets } from '../../src/planning/checks/subnet-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { codes, healthySnapshot } from './check-snapshot-fixture.js';

function withFree(free: Record<string, number>, fargate = false) {
  const s = healthySnapshot();
  s.subnets = readOk(Object.entries(free).map(([az, count]) => ({ subnetId: `subnet-${az}`, availabilityZone: `us-west-2${az}`, availableIpAddressCount: count })));
  if (fargate) {
    s.nodegroups = readOk([]);
    s.fargateProfiles = readOk([{ name: 'fp', subnets: Object.keys(free).map((az) => `subnet-${az}`), selectors: [{ namespace: 'assets' }] }]);
  }
  return s;
}

describe('subnet checks (NET0xx)', () => {
  it('NET001: exactly 5 free IPs in exactly 2 AZs is enough for the control plane', () => {
    expect(codes(checkSubnets(withFree({ a: 5, b: 5, c: 0 })).filter((f) => f.code === 'NET001'))).toEqual([]);
  });

  it('NET001: 4 free IPs in the second AZ is not, and the finding lists every cluster subnet with its count', () => {
    const [finding] = checkSubnets(withFree({ a: 500, b: 4, c: 0 })).filter((f) => f.code === 'NET001');
    expect(finding.severity).toBe('error');
    expect(finding.title).toContain('Only 1 availability zone');
    expect(finding.resources).toEqual(['subnet/subnet-a (us-west-2a, 500 free)', 'subnet/subnet-b (us-west-2b, 4 free)', 'subnet/subnet-c (us-west-2c, 0 free)']);
  });

  it('NET001: two subnets in the same AZ count as one AZ', () => {
    const s = healthySnapshot();
    s.subnets = readOk([
      { subnetId: 'subnet-a', availabilityZone: 'us-west-2a', availableIpAddressCount: 50 },
      { subnetId: 'subnet-b', availabilityZone: 'us-west-2a', availableIpAddressCount: 50 },
      { subnetId: 'subnet-c', availabilityZone: 'us-west-2c', availableIpAddressCount: 2 },
    ]);
    expect(codes(checkSubnets(s))).toContain('NET001:error');
  });

  it.each([
    [29, 'error'],
    [30, 'warning'],
    [99, 'warning'],
    [100, undefined],
  ])('NET002: a node group with %i free IPs across its subnets → %s', (free, severity) => {
    const s = withFree({ a: free - 2, b: 1, c: 1 });
    const found = checkSubnets(s).filter((f) => f.code === 'NET002');
    expect(found.map((f) => f.severity)).toEqual(severity ? [severity] : []);
    if (severity) expect(found[0].resources[0]).toBe('nodegroup/ng-a');
  });

  it('NET002 covers Fargate profile subnets too', () => {
    const [finding] = checkSubnets(withFree({ a: 10, b: 10, c: 5 }, true)).filter((f) => f.code === 'NET002');
    expect(finding).toMatchObject({ severity: 'error', resources: expect.arrayContaining(['fargateprofile/fp']) });
    expect(finding.title).toContain('25 free IPs');
  });

  it('says nothing when the subnets could not be read (EKS090 reports that)', () => {
    const s = healthySnapshot();
    s.subnets = { ok: false, error: 'denied' };
    expect(checkSubnets(s)).toEqual([]);
  });
});
