import { AssumeRoleCommand, AssumeRoleWithWebIdentityCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  DescribeUpdateCommand,
  EKSClient,
  InvalidParameterException,
  ListInsightsCommand,
  ListUpdatesCommand,
  paginateListUpdates,
  StartInsightsRefreshCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupVersionCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { createManualClock, type SimServer } from '@eks-upgrade-bot/sim';
import { sdkClientConfig } from '../../../src/aws/aws-client-config.js';
import { createEksPortFactory } from '../../../src/aws/eks-sdk-adapter.js';
import { readRecentUpdates } from '../../../jobs/engine/read-cluster-updates.js';
import { SIM_CREDENTIALS, simClientConfig, useSim } from '@eks-upgrade-bot/sim/kit';
import { aws } from '../../support/aws-cli.js';

/**
 * The simulator refuses what AWS refuses and promises no order AWS does not (issue 24), through the real SDK and the
 * real `aws` CLI: lists in pages and shuffled, UpdateNodegroupVersion's version and launch-template rules, malformed
 * launch template ids, trust policies, insights on EKS's scan schedule.
 */
const sim = useSim();

/** Fifteen finished config updates on record, one a minute, and the newest still running. */
function seedUpdates(s: SimServer, count = 15): string[] {
  const cluster = s.world.cluster('demo')!;
  const start = s.clock.now() - count * 60_000;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    ids.push(id);
    cluster.updates.push({ id, type: 'ConfigUpdate', status: i === count - 1 ? 'InProgress' : 'Successful', params: [], createdAt: start + i * 60_000, errors: [], scope: {} });
  }
  return ids;
}

async function allUpdateIds(eks: EKSClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of paginateListUpdates({ client: eks }, { name: 'demo' })) ids.push(...(page.updateIds ?? []));
  return ids;
}

describe('AWS lists as AWS serves them', () => {
  it('ListUpdates answers a small page with nextToken, in a fresh order each listing, and refuses bad maxResults and tokens', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    const seeded = seedUpdates(s);
    const eks = new EKSClient(simClientConfig(s));
    const first = await eks.send(new ListUpdatesCommand({ name: 'demo' }));
    expect(first.updateIds!.length).toBeLessThan(seeded.length);
    expect(first.nextToken).toBeTruthy();
    expect((await eks.send(new ListUpdatesCommand({ name: 'demo', maxResults: 100 }))).updateIds).toHaveLength(seeded.length);
    const listings = await Promise.all([allUpdateIds(eks), allUpdateIds(eks), allUpdateIds(eks)]);
    for (const ids of listings) expect([...ids].sort()).toEqual(seeded);
    // Three listings of 15 ids in the same order by chance: about 1 in 10^24.
    expect(new Set(listings.map((ids) => ids.join(','))).size).toBeGreaterThan(1);
    await expect(eks.send(new ListUpdatesCommand({ name: 'demo', maxResults: 101 }))).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(eks.send(new ListUpdatesCommand({ name: 'demo', nextToken: 'not-a-token' }))).rejects.toBeInstanceOf(InvalidParameterException);
  });

  it('the bot reads every page and orders the updates by createdAt, so the running one is never missed', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    const seeded = seedUpdates(s);
    const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS })({ region: 'us-west-2' });
    const recent = await readRecentUpdates(eks, 'demo');
    expect(recent.map((u) => u.id)).toEqual(seeded.slice(-10));
    expect(recent.at(-1)?.status).toBe('InProgress');
  });

  it('EC2 and Auto Scaling page and refuse limits outside their ranges (aws CLI)', async () => {
    const s = await sim('workshop', { clock: createManualClock() });
    const groups = await aws(s, 'autoscaling', 'describe-auto-scaling-groups', '--max-records', '101');
    expect(groups.ok).toBe(false);
    expect(groups.stderr).toContain('ValidationError');
    const subnets = await aws(s, 'ec2', 'describe-subnets', '--subnet-ids', 'subnet-0', '--max-results', '5');
    expect(subnets.ok).toBe(false);
    expect(subnets.stderr).toContain('InvalidParameterCombination');
    // The CLI follows NextToken itself: every subnet arrives, over several small pages.
    const all = await aws(s, 'ec2', 'describe-subnets', '--query', 'Subnets[].SubnetId');
    const page = await aws(s, 'ec2', 'describe-subnets', '--max-results', '5', '--no-paginate', '--query', 'Subnets[].SubnetId');
    expect(all.json.length).toBeGreaterThan(0);
    expect(page.json.length).toBeLessThanOrEqual(5);
  });
});

describe('EKS and EC2 refuse what they refuse', () => {
  it('UpdateNodegroupVersion goes to the cluster version or stays at its own, and names a launch template by id or name, not both', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    s.world.cluster('demo')!.nodegroups.get('demo-ng')!.version = '1.28';
    const eks = new EKSClient(simClientConfig(s));
    const between = eks.send(new UpdateNodegroupVersionCommand({ clusterName: 'demo', nodegroupName: 'demo-ng', version: '1.29' }));
    await expect(between).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(between).rejects.toThrow('Kubernetes version should be equal to Cluster kubernetes version 1.30 or NodeGroup kubernetes version 1.28');
    const both = eks.send(new UpdateNodegroupVersionCommand({ clusterName: 'demo', nodegroupName: 'demo-ng', launchTemplate: { id: 'lt-0123456789abcdef0', name: 'x', version: '1' } }));
    await expect(both).rejects.toThrow('Either provide launch template ID or launch template name in the request.');
    const { update } = await eks.send(new UpdateNodegroupVersionCommand({ clusterName: 'demo', nodegroupName: 'demo-ng', version: '1.30' }));
    expect(update?.status).toBe('InProgress');
  });

  it('a malformed launch template id is Malformed, an unknown well-formed one NotFound (aws CLI)', async () => {
    const s = await sim('workshop', { clock: createManualClock() });
    const malformed = await aws(s, 'ec2', 'describe-launch-template-versions', '--launch-template-id', 'lt-bogus');
    expect(malformed.stderr).toContain('InvalidLaunchTemplateId.Malformed');
    const unknown = await aws(s, 'ec2', 'describe-launch-template-versions', '--launch-template-id', 'lt-0123456789abcdef0');
    expect(unknown.stderr).toContain('InvalidLaunchTemplateId.NotFound');
  });
});

describe('a signature scoped to another service', () => {
  it('is refused as AWS refuses it, and our clients sign each service for itself', async () => {
    const s = await sim('demo', { clock: createManualClock() });
    const signedFor = (service: string) => new SignatureV4({ credentials: SIM_CREDENTIALS, region: 'us-west-2', service, sha256: Sha256 });
    const eksSignedForSts = new EKSClient({ ...simClientConfig(s), maxAttempts: 1, signer: signedFor('sts') });
    const eksCall = eksSignedForSts.send(new ListUpdatesCommand({ name: 'demo' }));
    await expect(eksCall).rejects.toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
    await expect(eksCall).rejects.toThrow("Credential should be scoped to correct service: 'eks'. ");
    const stsSignedForEc2 = new STSClient({ ...simClientConfig(s), maxAttempts: 1, signer: signedFor('ec2') });
    await expect(stsSignedForEc2.send(new GetCallerIdentityCommand({}))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    // The bot's own clients, one signer each for their client's life: every service's calls pass.
    const options = { endpoint: s.url, credentials: SIM_CREDENTIALS, maxAttempts: 1 };
    const target = { region: 'us-west-2' };
    await expect(new EKSClient(sdkClientConfig('eks', target, options)).send(new ListUpdatesCommand({ name: 'demo' }))).resolves.toBeTruthy();
    await expect(new STSClient(sdkClientConfig('sts', target, options)).send(new GetCallerIdentityCommand({}))).resolves.toMatchObject({ Account: expect.any(String) });
    await expect(new EKSClient(sdkClientConfig('sts', target, options)).send(new ListUpdatesCommand({ name: 'demo' }))).rejects.toThrow("Credential should be scoped to correct service: 'eks'. ");
  });
});

describe('STS trust policies', () => {
  const jwt = (claims: object) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'sig'].join('.');
  const ISSUER = 'oidc.eks.us-west-2.amazonaws.com/id/ABC';

  it('AssumeRole is AccessDenied for a role nothing trusts; the simulated account trusts its own identities by default', async () => {
    const s = await sim('demo');
    const sts = new STSClient(simClientConfig(s));
    const own = await sts.send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::111122223333:role/eks-upgrade', RoleSessionName: 'bot' }));
    expect(own.Credentials?.AccessKeyId).toMatch(/^ASIA/);
    const foreign = sts.send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::999988887777:role/eks-upgrade', RoleSessionName: 'bot' }));
    await expect(foreign).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('a given trust policy decides AssumeRole and AssumeRoleWithWebIdentity (IRSA: the provider and the service account in sub)', async () => {
    const role = 'arn:aws:iam::111122223333:role/irsa-bot';
    const other = 'arn:aws:iam::111122223333:role/nobody-trusts-me';
    const s = await sim('demo', {
      trustPolicies: {
        [role]: {
          Statement: [
            {
              Effect: 'Allow',
              Principal: { Federated: `arn:aws:iam::111122223333:oidc-provider/${ISSUER}` },
              Action: 'sts:AssumeRoleWithWebIdentity',
              Condition: { StringEquals: { [`${ISSUER}:sub`]: 'system:serviceaccount:eks-upgrade-bot:bot' } },
            },
          ],
        },
        [other]: { Statement: [{ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::444455556666:root' }, Action: 'sts:AssumeRole' }] },
      },
    });
    const sts = new STSClient({ endpoint: s.url, region: 'us-west-2', credentials: SIM_CREDENTIALS });
    const token = (sub: string) => jwt({ iss: `https://${ISSUER}`, sub, aud: 'sts.amazonaws.com' });
    const ok = await sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: role, RoleSessionName: 'bot', WebIdentityToken: token('system:serviceaccount:eks-upgrade-bot:bot') }));
    expect(ok.AssumedRoleUser?.Arn).toBe('arn:aws:sts::111122223333:assumed-role/irsa-bot/bot');
    await expect(sts.send(new AssumeRoleWithWebIdentityCommand({ RoleArn: role, RoleSessionName: 'bot', WebIdentityToken: token('system:serviceaccount:default:other') }))).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(sts.send(new AssumeRoleCommand({ RoleArn: other, RoleSessionName: 'bot' }))).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});

describe('insights on EKS scan schedule', () => {
  it('keep describing the last scan after a version change, until StartInsightsRefresh has run for its simulated minutes', async () => {
    const clock = createManualClock();
    const s = await sim('demo', { clock });
    const eks = new EKSClient(simClientConfig(s));
    const versionsOf = async () => {
      const { insights } = await eks.send(new ListInsightsCommand({ clusterName: 'demo', maxResults: 100, filter: { categories: ['UPGRADE_READINESS'] } }));
      return { versions: [...new Set(insights!.map((i) => i.kubernetesVersion))], at: insights!.map((i) => i.lastRefreshTime!.getTime()) };
    };
    const before = await versionsOf();
    expect(before.versions).toEqual(['1.31']);
    const { update } = await eks.send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    await clock.advance(15 * 60_000);
    expect((await eks.send(new DescribeUpdateCommand({ name: 'demo', updateId: update!.id! }))).update?.status).toBe('Successful');
    // The cluster is at 1.31 now; the insights still speak of the upgrade to 1.31, as of the same scan.
    expect(await versionsOf()).toEqual(before);
    await eks.send(new StartInsightsRefreshCommand({ clusterName: 'demo' }));
    await clock.advance(30_000);
    expect(await versionsOf()).toEqual(before);
    await clock.advance(2 * 60_000);
    const after = await versionsOf();
    expect(after.versions).toEqual(['1.32']);
    expect(Math.min(...after.at)).toBeGreaterThan(Math.max(...before.at));
  });
});
