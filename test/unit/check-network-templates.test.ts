import { describe, expect, it } from 'vitest';
import { checkCustomNetworking } from '../../src/planning/checks/custom-networking-checks.js';
import { checkLaunchTemplates } from '../../src/planning/checks/launch-template-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { DEFAULT_POLICY } from '../../src/planning/plan-policy.js';
import { codes, healthySnapshot, nodegroup, withKube } from './check-snapshot-fixture.js';

describe('custom networking (NET003) and launch templates (NG005)', () => {
  function withPodSubnet(free: number | undefined) {
    let s = withKube(healthySnapshot(), 'eniConfigs', [{ metadata: { name: 'us-west-2a' }, spec: { subnet: 'subnet-pods-a' } }]);
    if (free !== undefined) s = { ...s, subnets: readOk([...(s.subnets as any).value, { subnetId: 'subnet-pods-a', availabilityZone: 'us-west-2a', availableIpAddressCount: free }]) };
    return s;
  }

  it('NET003: the ENIConfig pod subnet counts like a node subnet (error below 30, warning below 100)', () => {
    expect(checkCustomNetworking(withPodSubnet(500))).toEqual([]);
    expect(codes(checkCustomNetworking(withPodSubnet(60)))).toEqual(['NET003:warning']);
    const [error] = checkCustomNetworking(withPodSubnet(12));
    expect(error).toMatchObject({ code: 'NET003', severity: 'error', resources: ['eniconfig/us-west-2a', 'subnet/subnet-pods-a (us-west-2a, 12 free)'] });
    expect(checkCustomNetworking(withPodSubnet(undefined))[0].title).toMatch(/which EC2 did not return/);
    expect(checkCustomNetworking(healthySnapshot())).toEqual([]);
  });

  it('NG005: a launch template with versions newer than the one in use', () => {
    const s = healthySnapshot();
    s.nodegroups = readOk([nodegroup('ng-a', { launchTemplate: { id: 'lt-0abc', name: 'nodes', version: '2' } })]);
    s.launchTemplates = readOk([{ id: 'lt-0abc', name: 'nodes', latestVersion: 4 }]);
    const [finding] = checkLaunchTemplates(s, '1.31', DEFAULT_POLICY);
    expect(finding).toMatchObject({ code: 'NG005', severity: 'warning', resources: ['nodegroup/ng-a', 'launchtemplate/lt-0abc'] });
    expect(finding.title).toMatch(/^nodegroup\/ng-a runs launch template nodes version 2, but version 4 exists/);
    s.launchTemplates = readOk([{ id: 'lt-0abc', name: 'nodes', latestVersion: 2 }]);
    expect(checkLaunchTemplates(s, '1.31', DEFAULT_POLICY)).toEqual([]);
  });
});
