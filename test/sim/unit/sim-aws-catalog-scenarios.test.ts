import { describe, expect, it } from 'vitest';
import { loadScenario, scenarioNames } from '../../../src/sim/scenario/load-scenario.js';
import { amiIdFor, isAmiPublished, kubeletVersionFor, knownMinors, minorOfAmi, releaseVersionFor } from '../../../src/sim/aws/eks/version-catalog.js';

/** The simulator's version catalog (the seeds' real ids and versions) and its scenario files. */
describe('version catalog', () => {
  it('uses the kubelet versions and AMI ids the seeds print', () => {
    expect(kubeletVersionFor('1.25')).toBe('v1.25.16-eks-2d5f260');
    expect(kubeletVersionFor('1.30')).toBe('v1.30.14-eks-f69f56f');
    expect(kubeletVersionFor('1.31')).toBe('v1.31.14-eks-ecaa3a6');
    expect(amiIdFor('1.25', 'AL2')).toBe('ami-0078a0f78fafda978');
    expect(amiIdFor('1.26', 'AL2')).toBe('ami-086414611b43bb691');
    expect(amiIdFor('1.30', 'AL2023')).toBe('ami-0f676a166352f02ab');
    expect(releaseVersionFor('1.25')).toBe('1.25.16-20250715');
  });

  it('gives every minor 1.23–1.35 well-formed, distinct, reversible AMI ids and kubelet versions', () => {
    expect(knownMinors()[0]).toBe('1.23');
    expect(knownMinors().at(-1)).toBe('1.35');
    const ids = new Set<string>();
    for (const minor of knownMinors()) {
      expect(kubeletVersionFor(minor)).toMatch(new RegExp(`^v${minor.replace('.', '\\.')}\\.\\d+-eks-[0-9a-f]{7}$`));
      for (const family of ['AL2', 'AL2023', 'Bottlerocket'] as const) {
        for (const arch of ['x86_64', 'arm64'] as const) {
          const id = amiIdFor(minor, family, arch);
          expect(id).toMatch(/^ami-0[0-9a-f]{16}$/);
          expect(amiIdFor(minor, family, arch)).toBe(id);
          expect(minorOfAmi(id)).toBe(minor);
          ids.add(id);
        }
      }
    }
    expect(ids.size).toBe(knownMinors().length * 6);
    expect(minorOfAmi('ami-0123456789abcdef0')).toBeUndefined();
    expect(isAmiPublished('1.32', 'AL2')).toBe(true);
    expect(isAmiPublished('1.33', 'AL2')).toBe(false);
  });
});

describe('scenarios', () => {
  it('all load and validate', () => {
    for (const name of scenarioNames()) expect(loadScenario(name, { clusters: 3 }).clusters.length).toBeGreaterThan(0);
  });

  it('describe the seeds: workshop at 1.25 with its node groups, karpenter-lab at 1.30 pinned to the 1.30 AMI', () => {
    const workshop = loadScenario('workshop').clusters[0];
    expect(workshop).toMatchObject({ name: 'eksworkshop-eksctl', region: 'us-west-2', version: '1.25' });
    expect(workshop.nodegroups.map((n) => n.name)).toEqual(['initial-2025032502302076080000002c', 'blue-mng-20250325023020754500000029', 'custom-20250401115802906700000007']);
    const lab = loadScenario('karpenter-lab').clusters[0];
    expect(lab.version).toBe('1.30');
    expect(lab.karpenter?.ec2NodeClasses[0].spec).toMatchObject({ amiSelectorTerms: [{ id: 'ami-0f676a166352f02ab' }] });
    expect(loadScenario('karpenter-blocked-budget').clusters[0].karpenter?.nodePools[0].spec).toMatchObject({ disruption: { budgets: [{ nodes: '0' }] } });
  });

  it('names the bad field when a scenario is invalid, and the choices when it is unknown', () => {
    expect(() => loadScenario({ name: 'x', clusters: [{ name: 'c', region: 'us-west-2', version: '1.3' }] })).toThrow(
      'scenario given as an object: clusters.0.version: must be a Kubernetes minor like "1.30"',
    );
    expect(() =>
      loadScenario({ name: 'x', clusters: [{ name: 'c', region: 'us-west-2', version: '1.30', nodegroups: [{ name: 'ng', scaling: { min: 1, max: 2, desired: 5 } }] }] }),
    ).toThrow('clusters.0.nodegroups.0.scaling.desired: must be between min and max');
    expect(() => loadScenario('nope')).toThrow(/unknown scenario "nope": choose one of .*demo.*workshop/);
  });

  it('generates a fleet with mixed versions and some broken clusters', () => {
    const fleet = loadScenario('fleet', { clusters: 30 });
    expect(fleet.clusters.map((c) => c.name).slice(0, 2)).toEqual(['dev-001', 'staging-002']);
    expect(new Set(fleet.clusters.map((c) => c.version)).size).toBeGreaterThan(3);
    expect(fleet.clusters.filter((c) => c.unreachable)).toHaveLength(3);
    expect(fleet.clusters.some((c) => c.status === 'FAILED')).toBe(true);
  });
});
