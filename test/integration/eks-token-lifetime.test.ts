import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { createEksTokenSource } from '../../src/aws/eks-token.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { systemClock, type Clock } from '../../src/ports/clock.js';
import { SIM_CREDENTIALS, simClientConfig, useSim} from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';

/**
 * EKS bearer tokens as aws-iam-authenticator accepts them (issue 24): for 15 minutes of wall-clock time from their
 * X-Amz-Date, and only by the cluster named in their signed x-k8s-aws-id header — with or without --rbac — and the
 * bot signs a new one before its token lapses, so work longer than one token's life keeps going.
 */
const sim = useSim();

const pastClock = (agoMs: number): Clock => ({ ...systemClock, now: () => Date.now() - agoMs });

/** The Kubernetes port (client-node) of a cluster, sending exactly this token (kubectl sends none over plain HTTP). */
async function kubeWithToken(s: SimServer, cluster: string, token: string) {
  const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS });
  return createKubePortFactory({ eks, credentials: SIM_CREDENTIALS, tokenSourceFor: () => ({ token: async () => token }) })({ name: cluster, region: 'us-west-2' });
}

describe('EKS bearer tokens', () => {
  it('a token signed more than 15 minutes ago is Unauthorized, without --rbac too (client-node)', async () => {
    const s = await sim('demo');
    const fresh = await createEksTokenSource({ clusterName: 'demo', region: 'us-west-2', credentials: async () => SIM_CREDENTIALS }).token();
    const stale = await createEksTokenSource({ clusterName: 'demo', region: 'us-west-2', credentials: async () => SIM_CREDENTIALS, clock: pastClock(16 * 60_000) }).token();
    expect((await (await kubeWithToken(s, 'demo', fresh)).list('nodes')).items.length).toBeGreaterThan(0);
    await expect((await kubeWithToken(s, 'demo', stale)).list('nodes')).rejects.toMatchObject({ code: 401 });
  });

  it('a token is accepted only by the cluster named in x-k8s-aws-id (a session the simulator can check the signature of)', async () => {
    const s = await sim('fleet', { clusters: 2 });
    const [a, b] = [...s.world.clusters.keys()];
    const sts = new STSClient(simClientConfig(s));
    const { Credentials } = await sts.send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::111122223333:role/eks-upgrade', RoleSessionName: 'bot' }));
    const session = { accessKeyId: Credentials!.AccessKeyId!, secretAccessKey: Credentials!.SecretAccessKey!, sessionToken: Credentials!.SessionToken! };
    const tokenForA = await createEksTokenSource({ clusterName: a, region: 'us-west-2', credentials: async () => session }).token();
    expect((await (await kubeWithToken(s, a, tokenForA)).list('nodes')).items.length).toBeGreaterThan(0);
    await expect((await kubeWithToken(s, b, tokenForA)).list('nodes')).rejects.toMatchObject({ code: 401 });
  });

  it('a token signed with a static key the simulator knows is refused by another cluster too; an unknown key is not checked', async () => {
    const s = await sim('fleet', { clusters: 2 });
    const [a, b] = [...s.world.clusters.keys()];
    const tokenForA = await createEksTokenSource({ clusterName: a, region: 'us-west-2', credentials: async () => SIM_CREDENTIALS }).token();
    expect((await (await kubeWithToken(s, a, tokenForA)).list('nodes')).items.length).toBeGreaterThan(0);
    await expect((await kubeWithToken(s, b, tokenForA)).list('nodes')).rejects.toMatchObject({ code: 401 });
    // A key whose secret the simulator cannot know: the signed header is there, the binding cannot be checked.
    const unknown = { accessKeyId: 'AKIAUNKNOWNKEY000000', secretAccessKey: 'unknown-to-the-simulator' };
    const tokenWithUnknownKey = await createEksTokenSource({ clusterName: a, region: 'us-west-2', credentials: async () => unknown }).token();
    expect((await (await kubeWithToken(s, b, tokenWithUnknownKey)).list('nodes')).items.length).toBeGreaterThan(0);
  });

  it('the bot signs a new token before the old one lapses, so reads go on past the lifetime; a reused one is refused', async () => {
    // The lifetime shortened to 2.5 s of wall-clock time (named option), the bot's reuse to 1 s to match (X-Amz-Date
    // has whole seconds, so a token can look up to a second older than the bot thinks).
    const LIFETIME_MS = 2500;
    const s = await sim('demo', { strictness: { eksTokenLifetimeMs: LIFETIME_MS } });
    const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS });
    const refreshing = await createKubePortFactory({ eks, credentials: SIM_CREDENTIALS, tokenReuseMs: 1000 })({ name: 'demo', region: 'us-west-2' });
    const reusing = await createKubePortFactory({ eks, credentials: SIM_CREDENTIALS })({ name: 'demo', region: 'us-west-2' });
    const started = Date.now();
    expect((await reusing.list('nodes')).items.length).toBeGreaterThan(0);
    let reads = 0;
    // Keep reading until three lifetimes of wall-clock time have passed: every read must succeed.
    await until(async () => {
      await refreshing.list('nodes');
      reads++;
      return Date.now() - started > 3 * LIFETIME_MS;
    }, 'three token lifetimes of reads', { timeoutMs: 30_000, intervalMs: 100 });
    expect(reads).toBeGreaterThan(3);
    await expect(reusing.list('nodes')).rejects.toMatchObject({ code: 401 });
  });
});
