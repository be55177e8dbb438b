import { describe, expect, it } from 'vitest';
import { nodegroupPolicyFor, parseClustersYaml, selfManagedPolicyFor } from '../../src/config/clusters-config.js';
import { clustersYamlErrorOf } from '../support/clusters-yaml-error.js';

/** clusters.yaml for custom-AMI node groups and self-managed groups (issue 13), validated like the rest. */
const withGroups = (groups: string) => `
clusters:
  - name: demo
    region: us-west-2
    channels: [C0DEMO]
    requesters: [U0REQ]
    approvers: [U0APP]
${groups}
`;

const errorOf = clustersYamlErrorOf;

describe('clusters.yaml AMI sources and self-managed groups', () => {
  it('reads the docs/configuration.md example: AMI sources per node group and strategies per Auto Scaling group', () => {
    const [cluster] = parseClustersYaml(withGroups(`    nodegroups:
      custom*: { strategy: in-place, amiParameter: "/my/amis/{minor}/image_id" }
      gpu-ng:  { ami: { "1.26": ami-0123456789abcdef0 } }
    selfManaged:
      carts-asg*: { strategy: rolling }
      batch-asg:  { strategy: instance-refresh, minHealthyPercentage: 90, amiParameter: "/my/amis/{minor}/image_id" }`)).clusters;
    expect(nodegroupPolicyFor(cluster, 'custom-2025')).toMatchObject({ strategy: 'in-place', amiParameter: '/my/amis/{minor}/image_id' });
    expect(nodegroupPolicyFor(cluster, 'gpu-ng')).toMatchObject({ ami: { '1.26': 'ami-0123456789abcdef0' } });
    expect(selfManagedPolicyFor(cluster, 'carts-asg-1')).toEqual({ strategy: 'rolling', minHealthyPercentage: 90 });
    expect(selfManagedPolicyFor(cluster, 'batch-asg')).toEqual({ strategy: 'instance-refresh', minHealthyPercentage: 90, amiParameter: '/my/amis/{minor}/image_id' });
    expect(selfManagedPolicyFor(cluster, 'other')).toEqual({ strategy: 'rolling', minHealthyPercentage: 90 });
  });

  it('refuses bad values and unknown keys, naming the field', () => {
    expect(errorOf(withGroups('    selfManaged: { carts: { strategy: surge } }'))).toMatch(/^clusters\.yaml: clusters\[0\] \(demo\)\.selfManaged\.carts\.strategy: /);
    expect(errorOf(withGroups('    selfManaged: { carts: { minHealthyPercentage: 120 } }'))).toMatch(/selfManaged\.carts\.minHealthyPercentage: /);
    expect(errorOf(withGroups('    selfManaged: { carts: { maxSurge: 1 } }'))).toMatch(/selfManaged\.carts: unknown key "maxSurge"/);
    expect(errorOf(withGroups('    nodegroups: { custom: { ami: { "1.26": "my-ami" } } }'))).toBe('clusters.yaml: clusters[0] (demo).nodegroups.custom.ami.1.26: must be an AMI id like ami-0123456789abcdef0');
    expect(errorOf(withGroups('    nodegroups: { custom: { amiParameter: "/my/{version}/id" } }'))).toBe('clusters.yaml: clusters[0] (demo).nodegroups.custom.amiParameter: may only contain the placeholder {minor}');
    expect(errorOf(withGroups('    nodegroups: { custom: { amiParameter: "my/amis" } }'))).toMatch(/amiParameter: must be an SSM parameter name like/);
  });
});
