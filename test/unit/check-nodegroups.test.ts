import { describe, expect, it } from 'vitest';
import { checkNodegroups } from '../../src/planning/checks/nodegroup-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { DEFAULT_POLICY } from '../../src/planning/plan-policy.js';
import { codes, healthySnapshot, node, nodegroup } from './check-snapshot-fixture.js';

function withNodegroups(...ngs: ReturnType<typeof nodegroup>[]) {
  const s = healthySnapshot();
  s.nodegroups = readOk(ngs);
  return s;
}

function at(version: string, s = healthySnapshot()) {
  s.cluster = readOk({ ...(s.cluster as any).value, version });
  return s;
}

describe('node group checks (NG0xx)', () => {
  it('an AL2023 node group that follows version bumps needs nothing', () => {
    expect(checkNodegroups(healthySnapshot(), '1.31')).toEqual([]);
  });

  it('NG001: a custom-AMI node group will not move; the fix names the matching EKS AMI from SSM when the custom one is EKS-optimized', () => {
    const custom = nodegroup('custom', { amiType: 'CUSTOM', releaseVersion: 'ami-0078a0f78fafda978', launchTemplate: { name: 'custom-lt', version: '1' } });
    const s = at('1.25', withNodegroups(custom));
    s.amis = [
      { minor: '1.25', family: 'AL2', arch: 'x86_64', parameter: '/aws/service/eks/optimized-ami/1.25/amazon-linux-2/recommended/image_id', imageId: 'ami-0078a0f78fafda978' },
      { minor: '1.26', family: 'AL2', arch: 'x86_64', parameter: '/aws/service/eks/optimized-ami/1.26/amazon-linux-2/recommended/image_id', imageId: 'ami-086414611b43bb691' },
    ];
    const [finding] = checkNodegroups(s, '1.26');
    expect(finding).toMatchObject({ code: 'NG001', severity: 'warning', resources: ['nodegroup/custom'] });
    expect(finding.title).toBe('Managed node group custom runs a custom AMI (ami-0078a0f78fafda978 via launch template custom-lt v1): a version bump will not move it to 1.26');
    expect(finding.remedy).toContain('ami-086414611b43bb691 (the 1.26 AL2 x86_64 AMI');
    expect(finding.remedy).toContain('nodegroups.custom.launchTemplateVersion');
  });

  it('NG001 is only information once clusters.yaml names the launch template version to roll to', () => {
    const custom = nodegroup('custom', { amiType: 'CUSTOM', releaseVersion: 'ami-0123456789abcdef0', launchTemplate: { name: 'lt', version: '1' } });
    const policy = { ...DEFAULT_POLICY, nodegroup: () => ({ strategy: 'in-place' as const, launchTemplateVersion: '2' }) };
    const [finding] = checkNodegroups(withNodegroups(custom), '1.31', policy);
    expect(finding).toMatchObject({ code: 'NG001', severity: 'info' });
    expect(finding.remedy).toContain('launch template version 2');
  });

  it('NG002: a node group that is not ACTIVE or has health issues blocks', () => {
    const found = checkNodegroups(withNodegroups(nodegroup('ng-a', { status: 'DEGRADED', healthIssues: [{ code: 'AsgInstanceLaunchFailures', message: 'no capacity', resourceIds: [] }] })), '1.31');
    expect(codes(found)).toEqual(['NG002:error']);
    expect(found[0].title).toContain('AsgInstanceLaunchFailures no capacity');
  });

  it.each([
    ['1.31', []],
    ['1.32', ['NG003:warning']],
    ['1.33', ['NG003:error']],
  ])('NG003: an AL2 node group with target %s → %j', (target, expected) => {
    const s = at(`1.${Number(target.split('.')[1]) - 1}`, withNodegroups(nodegroup('al2', { amiType: 'AL2_x86_64' })));
    expect(codes(checkNodegroups(s, target))).toEqual(expected);
  });

  it('NG004: a self-managed group is reported with its nodes and the AMI to roll to', () => {
    const s = healthySnapshot();
    const selfManaged = [1, 2].map((i) => {
      const n = node(`sm-${i}`, '1.30', { 'node.kubernetes.io/lifecycle': 'self-managed', 'alpha.eksctl.io/nodegroup-name': 'carts' });
      n.status.nodeInfo.osImage = 'Amazon Linux 2';
      return n;
    });
    s.kube = { ...s.kube, nodes: readOk([...(s.kube.nodes as any).value, ...selfManaged]) };
    s.amis = [{ minor: '1.31', family: 'AL2', arch: 'x86_64', parameter: '/p', imageId: 'ami-0aaa' }];
    // Auto Scaling was read and holds none of these nodes: nothing upgrades them.
    s.autoScalingGroups = readOk([]);
    const found = checkNodegroups(s, '1.31');
    expect(codes(found)).toEqual(['NG004:warning']);
    expect(found[0].title).toBe('Self-managed node group carts (2 nodes, kubelet 1.30) has no Auto Scaling group the bot can see, so nothing upgrades it');
    expect(found[0].resources).toEqual(['selfmanaged/carts', 'node/sm-1', 'node/sm-2']);
    expect(found[0].remedy).toContain('ami-0aaa');
    // AL2 self-managed nodes fall under NG003 too.
    expect(codes(checkNodegroups(s, '1.32'))).toEqual(['NG004:warning', 'NG003:warning']);

    // Once their Auto Scaling group is seen (by the instance ids in the nodes' providerIDs), the job rolls them: info.
    selfManaged.forEach((n, i) => (n.spec = { ...n.spec, providerID: `aws:///us-west-2a/i-0${i}` }));
    s.autoScalingGroups = readOk([{ name: 'carts-asg', minSize: 2, maxSize: 3, desiredCapacity: 2, instanceIds: ['i-00', 'i-01'], protectedInstances: [], amis: [] }]);
    const rolled = checkNodegroups(s, '1.31');
    expect(codes(rolled)).toEqual(['NG004:info']);
    expect(rolled[0].title).toBe('Self-managed node group carts (2 nodes, kubelet 1.30) is rolled by the job through its Auto Scaling group carts-asg');
  });
});
