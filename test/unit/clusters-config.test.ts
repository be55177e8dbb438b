import { describe, expect, it } from 'vitest';
import { nodegroupPolicyFor, parseClustersYaml } from '../../src/config/clusters-config.js';
import { clustersYamlErrorOf } from '../support/clusters-yaml-error.js';

const minimal = `
clusters:
  - name: demo
    region: us-west-2
    channels: [C0DEMO]
    requesters: [U0REQ]
    approvers: [U0APP]
`;

const errorOf = clustersYamlErrorOf;

describe('clusters.yaml', () => {
  it('accepts the minimal shape from docs/configuration.md and fills in safe defaults', () => {
    const config = parseClustersYaml(minimal);
    expect(config.clusters).toHaveLength(1);
    expect(config.clusters[0]).toMatchObject({
      name: 'demo',
      region: 'us-west-2',
      twoPersonRule: false,
      karpenter: { upgradeBudget: '1' },
      addons: { resolveConflicts: 'PRESERVE' },
    });
  });

  it('applies defaults: to every cluster, with the cluster winning', () => {
    const config = parseClustersYaml(`
defaults:
  region: eu-west-1
  channels: [C0OPS]
  requesters: [U0REQ]
  approvers: [S0ONCALL]
  twoPersonRule: true
clusters:
  - name: a
  - name: b
    region: us-east-1
    twoPersonRule: false
`);
    expect(config.clusters.map((c) => [c.name, c.region, c.twoPersonRule])).toEqual([
      ['a', 'eu-west-1', true],
      ['b', 'us-east-1', false],
    ]);
    expect(config.clusters[0].approvers).toEqual(['S0ONCALL']);
  });

  it('names the bad field and the cluster', () => {
    expect(errorOf(minimal.replace('us-west-2', 'oregon'))).toBe(
      'clusters.yaml: clusters[0] (demo).region: must be an AWS region like us-west-2',
    );
    expect(errorOf(minimal.replace('[C0DEMO]', '[general]'))).toContain('clusters[0] (demo).channels[0]: must be a Slack channel ID');
    expect(errorOf(minimal.replace('    approvers: [U0APP]\n', ''))).toContain('(demo).approvers: is required');
    expect(errorOf(minimal + '    colour: blue\n')).toContain('colour');
    expect(errorOf('clusters: []')).toContain('clusters: must list at least one cluster');
    expect(errorOf('clusters: [oops')).toMatch(/^clusters.yaml: not valid YAML/);
  });

  it('refuses a budget Karpenter would not accept and duplicate names', () => {
    expect(errorOf(minimal + '    karpenter: { upgradeBudget: "one" }\n')).toContain('karpenter.upgradeBudget');
    expect(errorOf(minimal + minimal.replace('clusters:\n', ''))).toContain('"demo" is listed twice');
  });

  it('picks node-group strategies by exact name, then longest prefix, then "*"', () => {
    const config = parseClustersYaml(`${minimal}    nodegroups:
      blue-mng*: { strategy: blue-green }
      blue-mng-critical: { strategy: in-place }
      "*": { strategy: in-place }
`);
    const cluster = config.clusters[0];
    expect(nodegroupPolicyFor(cluster, 'blue-mng').strategy).toBe('blue-green');
    expect(nodegroupPolicyFor(cluster, 'blue-mng-2').strategy).toBe('blue-green');
    expect(nodegroupPolicyFor(cluster, 'blue-mng-critical').strategy).toBe('in-place');
    expect(nodegroupPolicyFor(cluster, 'initial').strategy).toBe('in-place');
  });
});
