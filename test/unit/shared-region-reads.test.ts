import { describe, expect, it } from 'vitest';
import type { EksPort } from '../../src/ports/aws/eks-port.js';
import { systemClock } from '../../src/ports/clock.js';
import type { SnapshotSources } from '../../src/cluster-reader/collect-snapshot.js';
import { shareRegionReads } from '../../src/cluster-reader/shared-region-reads.js';

/** A counting EksPort per region/role (a pure unit: the integration tests read the simulator). */
function countingSources(failFor?: string) {
  const calls: string[] = [];
  const eks = (target: { region: string; roleArn?: string }): EksPort =>
    ({
      describeClusterVersions: async () => {
        calls.push(`versions ${target.region} ${target.roleArn ?? ''}`);
        if (failFor && target.roleArn === failFor) throw new Error('AccessDeniedException: not authorized');
        return [{ clusterVersion: '1.31' }];
      },
      describeAddonVersions: async (addon: string, minor: string) => {
        calls.push(`addon ${target.region} ${addon} ${minor}`);
        return [{ addonName: addon, addonVersions: [] }];
      },
      describeCluster: async (name: string) => {
        calls.push(`cluster ${name}`);
        return { name };
      },
    }) as unknown as EksPort;
  const sources = { eks, clock: systemClock } as unknown as SnapshotSources;
  return { sources, calls };
}

describe('shareRegionReads', () => {
  it('reads versions and each add-on catalogue once per region, and everything else per cluster', async () => {
    const { sources, calls } = countingSources();
    const shared = shareRegionReads(sources);
    await Promise.all(
      ['a', 'b', 'c'].flatMap((name) => [
        shared.eks({ region: 'us-east-1', roleArn: `arn:${name}` }).describeClusterVersions(),
        shared.eks({ region: 'us-east-1', roleArn: `arn:${name}` }).describeAddonVersions('vpc-cni', '1.31'),
        shared.eks({ region: 'us-east-1', roleArn: `arn:${name}` }).describeCluster(name),
        shared.eks({ region: 'eu-west-1' }).describeClusterVersions(),
      ]),
    );
    expect(calls.filter((c) => c.startsWith('versions')).length).toBe(2);
    expect(calls.filter((c) => c.startsWith('addon'))).toEqual(['addon us-east-1 vpc-cni 1.31']);
    expect(calls.filter((c) => c.startsWith('cluster')).sort()).toEqual(['cluster a', 'cluster b', 'cluster c']);
  });

  it('does not hand one account’s failure to the others: they ask with their own credentials', async () => {
    const { sources } = countingSources('arn:denied');
    const shared = shareRegionReads(sources);
    const denied = shared.eks({ region: 'us-east-1', roleArn: 'arn:denied' }).describeClusterVersions();
    const allowed = shared.eks({ region: 'us-east-1', roleArn: 'arn:ok' }).describeClusterVersions();
    await expect(denied).rejects.toThrow('AccessDeniedException');
    await expect(allowed).resolves.toEqual([{ clusterVersion: '1.31' }]);
  });
});
