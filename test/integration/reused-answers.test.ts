import { describe, expect, it } from 'vitest';
import { loadRbacFile, type SimServer } from '@eks-upgrade-bot/sim';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { SIM_CREDENTIALS, simControl, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * What the adapters reuse instead of asking again (bench P8: 122 SelfSubjectAccessReviews and 21
 * DescribeAddonVersions per cluster of a rollout), counted by the simulator over HTTP: an allowed access review
 * and an add-on catalogue are asked once; a denial is asked again every time, so RBAC fixed after a plan's ACC001
 * is seen at the preflight.
 */
const sim = useSim();
const RBAC = loadRbacFile('deploy/rbac/cluster-role.yaml');

async function counts(s: SimServer): Promise<{ aws: Record<string, number>; kube: Record<string, number> }> {
  return simControl(s, 'GET', '/_sim/requests');
}

describe('answers the adapters reuse', () => {
  it('asks an allowed SelfSubjectAccessReview once per cluster, a denied one every time', async () => {
    const s = await sim('demo', { rbac: { objects: RBAC } });
    const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS });
    const kube = await createKubePortFactory({ eks, credentials: SIM_CREDENTIALS })({ name: 'demo', region: 'us-west-2' });
    await simControl(s, 'DELETE', '/_sim/requests');
    const allowed = { verb: 'list', resource: 'nodes' } as const;
    const denied = { verb: 'patch', resource: 'namespaces' } as const;
    expect(await Promise.all([kube.canI(allowed), kube.canI(allowed)])).toEqual([true, true]);
    expect(await kube.canI(allowed)).toBe(true);
    expect(await kube.canI(denied)).toBe(false);
    expect(await kube.canI(denied)).toBe(false);
    expect((await counts(s)).kube['create selfsubjectaccessreviews']).toBe(3);

    // Reuse off: every question goes to the apiserver.
    const asking = await createKubePortFactory({ eks, credentials: SIM_CREDENTIALS, accessReuseMs: 0 })({ name: 'demo', region: 'us-west-2' });
    await simControl(s, 'DELETE', '/_sim/requests');
    expect(await asking.canI(allowed)).toBe(true);
    expect(await asking.canI(allowed)).toBe(true);
    expect((await counts(s)).kube['create selfsubjectaccessreviews']).toBe(2);
  });

  it('reads an add-on catalogue once per add-on and minor for every cluster of a client, every page of it', async () => {
    const s = await sim('demo');
    const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS })({ region: 'us-west-2' });
    await simControl(s, 'DELETE', '/_sim/requests');
    const first = await eks.describeAddonVersions('vpc-cni', '1.31');
    const again = await Promise.all([eks.describeAddonVersions('vpc-cni', '1.31'), eks.describeAddonVersions('vpc-cni', '1.31')]);
    expect(first[0]?.addonVersions?.length).toBeGreaterThan(0);
    expect(again).toEqual([first, first]);
    const other = await eks.describeAddonVersions('vpc-cni', '1.30');
    expect(other[0]?.addonName).toBe('vpc-cni');
    const pages = (await counts(s)).aws['eks DescribeAddonVersions'];
    // One read per minor, however many pages each took.
    const reading = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS, addonCatalogueReuseMs: 0 })({ region: 'us-west-2' });
    await simControl(s, 'DELETE', '/_sim/requests');
    await reading.describeAddonVersions('vpc-cni', '1.31');
    await reading.describeAddonVersions('vpc-cni', '1.30');
    expect(pages).toBe((await counts(s)).aws['eks DescribeAddonVersions']);
    await reading.describeAddonVersions('vpc-cni', '1.31');
    expect((await counts(s)).aws['eks DescribeAddonVersions']).toBeGreaterThan(pages);
  });
});
