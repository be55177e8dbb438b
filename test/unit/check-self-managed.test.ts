import { describe, expect, it } from 'vitest';
import { checkSelfManaged } from '../../src/planning/checks/self-managed-checks.js';
import { readOk, type AsgSnapshot } from '../../src/planning/cluster-snapshot.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { healthySnapshot } from './check-snapshot-fixture.js';

/** ASG0xx: what would stop or slow the job's rollout of a self-managed group (the demo fixture is at 1.30). */
function group(overrides: Partial<AsgSnapshot> = {}): AsgSnapshot {
  return {
    name: 'carts-asg',
    minSize: 2,
    maxSize: 3,
    desiredCapacity: 2,
    instanceIds: ['i-0a', 'i-0b'],
    protectedInstances: [],
    launchTemplate: { id: 'lt-01', name: 'carts', groupVersion: '3', defaultVersion: 3, latestVersion: 3 },
    amis: [{ minor: '1.31', parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id', imageId: 'ami-0abc' }],
    ...overrides,
  };
}
const run = (g: AsgSnapshot, policy = policyFromConfig(undefined)) => {
  const s = healthySnapshot();
  s.autoScalingGroups = readOk([g]);
  return checkSelfManaged(s, '1.31', policy);
};

describe('self-managed group checks (ASG0xx)', () => {
  it('a group with room, one template version, an AMI for 1.31 and no protection needs nothing', () => {
    expect(run(group())).toEqual([]);
    expect(checkSelfManaged(healthySnapshot(), '1.31')).toEqual([]);
  });

  it('ASG001: pending launch template versions the bot\'s copy would skip', () => {
    const [finding] = run(group({ launchTemplate: { id: 'lt-01', name: 'carts', groupVersion: '3', defaultVersion: 3, latestVersion: 5 } }));
    expect(finding).toMatchObject({ code: 'ASG001', severity: 'warning', resources: ['autoscalinggroup/carts-asg', 'launchtemplate/lt-01'] });
    expect(finding.title).toContain('has 2 versions newer than the 3 the group uses (latest 5)');
    expect(finding.remedy).toContain('Version=5');
  });

  it('ASG002: no AMI for the next minor, unless clusters.yaml names a source', () => {
    const missing = group({ amis: [{ minor: '1.31', parameter: '/aws/service/eks/optimized-ami/1.31/amazon-linux-2/recommended/image_id' }] });
    expect(run(missing)).toEqual([expect.objectContaining({ code: 'ASG002', severity: 'error', title: 'No 1.31 AMI for self-managed group carts-asg: SSM /aws/service/eks/optimized-ami/1.31/amazon-linux-2/recommended/image_id does not exist' })]);
    const config = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0A'], requesters: ['U0A'], approvers: ['U0B'], selfManaged: { 'carts-*': { amiParameter: '/my/amis/{minor}/image_id' } } }] });
    expect(run(missing, policyFromConfig(config.clusters[0]))).toEqual([]);
  });

  it('ASG003: a group at its max size has no room for a replacement', () => {
    const [finding] = run(group({ maxSize: 2 }));
    expect(finding).toMatchObject({ code: 'ASG003', severity: 'warning' });
    expect(finding.remedy).toBe('Raise the max size by one for the upgrade: aws autoscaling update-auto-scaling-group --auto-scaling-group-name carts-asg --max-size 3');
  });

  it('ASG004: scale-in protection is an error for an instance refresh, a warning for the rolling replacement', () => {
    const protectedGroup = group({ protectedInstances: ['i-0a'] });
    expect(run(protectedGroup)).toEqual([expect.objectContaining({ code: 'ASG004', severity: 'warning' })]);
    const config = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0A'], requesters: ['U0A'], approvers: ['U0B'], selfManaged: { 'carts-asg': { strategy: 'instance-refresh' } } }] });
    const [finding] = run(protectedGroup, policyFromConfig(config.clusters[0]));
    expect(finding).toMatchObject({ code: 'ASG004', severity: 'error', resources: ['autoscalinggroup/carts-asg', 'instance/i-0a'] });
    expect(finding.title).toContain('its instance refresh would wait an hour for them, then fail');
  });
});
