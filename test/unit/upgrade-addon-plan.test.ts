import type { AddonInfo } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { compareAddonVersions, planAddonUpdate } from '../../src/planning/deciders/plan-addon-update.js';

function info(name: string, versions: Array<[string, string[], string[]?]>): AddonInfo[] {
  return [
    {
      addonName: name,
      addonVersions: versions.map(([addonVersion, minors, defaults = []]) => ({
        addonVersion,
        compatibilities: minors.map((clusterVersion) => ({ clusterVersion, defaultVersion: defaults.includes(clusterVersion) })),
      })),
    },
  ];
}

describe('planAddonUpdate', () => {
  const coredns = info('coredns', [
    ['v1.8.7-eksbuild.10', ['1.25'], ['1.25']],
    ['v1.9.3-eksbuild.22', ['1.25', '1.26'], ['1.26']],
    ['v1.10.1-eksbuild.1', ['1.26']],
  ]);

  it("moves an add-on to the target minor's default version (the workshop's coredns 1.25 → 1.26)", () => {
    expect(planAddonUpdate('coredns', 'v1.8.7-eksbuild.10', '1.26', coredns)).toMatchObject({ next: 'v1.9.3-eksbuild.22', goal: 'v1.9.3-eksbuild.22' });
  });

  it('leaves an add-on at the default, or newer than it, alone and says why', () => {
    const atDefault = planAddonUpdate('coredns', 'v1.9.3-eksbuild.22', '1.26', coredns);
    expect(atDefault.next).toBeUndefined();
    expect(atDefault.reason).toMatch(/already at v1.9.3-eksbuild.22/);
    const newer = planAddonUpdate('coredns', 'v1.10.1-eksbuild.1', '1.26', coredns);
    expect(newer.next).toBeUndefined();
    expect(newer.reason).toMatch(/newer than the 1.26 default/);
  });

  it('moves the VPC CNI one minor version per update, through the newest build of the minor in between', () => {
    const cni = info('vpc-cni', [
      ['v1.17.1-eksbuild.1', ['1.31']],
      ['v1.18.2-eksbuild.1', ['1.31']],
      ['v1.18.6-eksbuild.2', ['1.31']],
      ['v1.19.3-eksbuild.1', ['1.31'], ['1.31']],
    ]);
    expect(planAddonUpdate('vpc-cni', 'v1.17.1-eksbuild.1', '1.31', cni)).toMatchObject({ next: 'v1.18.6-eksbuild.2', goal: 'v1.19.3-eksbuild.1' });
    expect(planAddonUpdate('vpc-cni', 'v1.18.6-eksbuild.2', '1.31', cni)).toMatchObject({ next: 'v1.19.3-eksbuild.1' });
  });

  it('reports an add-on EKS names no default for', () => {
    const plan = planAddonUpdate('custom', 'v1.0.0', '1.31', info('custom', [['v1.0.0', ['1.31']]]));
    expect(plan.next).toBeUndefined();
    expect(plan.reason).toBe('EKS names no default version of custom for 1.31; left at v1.0.0');
  });

  it('orders versions numerically, builds included', () => {
    expect(['v1.10.0-eksbuild.1', 'v1.9.3-eksbuild.22', 'v1.9.3-eksbuild.3'].sort(compareAddonVersions)).toEqual(['v1.9.3-eksbuild.3', 'v1.9.3-eksbuild.22', 'v1.10.0-eksbuild.1']);
  });
});
