import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadIamPolicyFile, loadRbacFile, startFakeSlack, type FakeSlack, type SimServer } from '@eks-upgrade-bot/sim';
import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createAwsProbePort } from '../../src/aws/doctor-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import type { DoctorCheck } from '../../src/ports/doctor-check.js';
import { systemClock } from '../../src/ports/clock.js';
import { ensureRedis, type RedisHandle } from '../../src/demo/ensure-redis.js';
import { redisUrl } from '../support/redis-url.js';
import { simClientConfig, useSim } from '@eks-upgrade-bot/sim/kit';
import { policyWithout } from '../support/policy-without.js';

/**
 * `eks-upgrade doctor` against the simulator (enforcing deploy/iam/permissions-policy.json and
 * deploy/rbac/cluster-role.yaml, each less one permission), the fake Slack (a token short of one scope, a channel
 * the bot is not in) and a real Redis: each missing permission or setting is named exactly, and nothing else fails.
 */
const sim = useSim();
const POLICY = loadIamPolicyFile('deploy/iam/permissions-policy.json');
const SECRET = 'doctor-signing-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'doctor-'));
const CLUSTERS = join(dir, 'clusters.yaml');
writeFileSync(CLUSTERS, 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [S0ONCALL] }\n');

let fake: FakeSlack;
let lru: RedisHandle;
beforeAll(async () => {
  fake = await startFakeSlack({ signingSecret: SECRET, userGroups: { S0ONCALL: ['U0APP'] } });
});
afterAll(async () => {
  await fake?.close();
  await lru?.stop();
});

/** Runs doctor as the bot's role (a session of role/eks-upgrade-bot, assumed from the simulator's test user). */
async function doctor(s: SimServer, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; checks: DoctorCheck[]; stderr: string }> {
  const assumed = await new STSClient(simClientConfig(s)).send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::111122223333:role/eks-upgrade-bot', RoleSessionName: 'doctor' }));
  const credentials = { accessKeyId: assumed.Credentials!.AccessKeyId!, secretAccessKey: assumed.Credentials!.SecretAccessKey!, sessionToken: assumed.Credentials!.SessionToken! };
  const options = { endpoint: s.url, credentials, maxAttempts: 1 };
  const eks = createEksPortFactory(options);
  let stdout = '';
  let stderr = '';
  const code = await runCli(['doctor', ...(args.includes('--clusters-file') ? [] : ['--clusters-file', CLUSTERS]), '--output', 'json', ...args], {
    env: { REDIS_URL: redisUrl, SLACK_BOT_TOKEN: 'xoxb-doctor', SLACK_API_URL: fake.apiUrl, ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    sources: () => ({ eks, ec2: createEc2PortFactory(options), ssm: createSsmPortFactory(options), autoScaling: createAutoScalingPortFactory(options), kube: createKubePortFactory({ eks, credentials, aws: options }), clock: systemClock }),
    awsProbes: () => createAwsProbePort(options),
  });
  return { code, checks: stdout ? JSON.parse(stdout) : [], stderr };
}

const failures = (checks: DoctorCheck[]) => checks.filter((c) => c.ok === false).map((c) => ({ id: c.id, missing: c.missing }));

describe('eks-upgrade doctor', () => {
  it('passes everything under the shipped policy and ClusterRole, and says so as { id, area, ok, detail, fix }', async () => {
    const s = await sim('demo', { iamPolicy: POLICY, rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    const { code, checks, stderr } = await doctor(s);
    expect(stderr).toBe('');
    expect(failures(checks)).toEqual([]);
    expect(code).toBe(0);
    for (const check of checks) expect(Object.keys(check).slice(0, 5)).toEqual(['id', 'area', 'ok', 'detail', 'fix']);
    expect(checks.find((c) => c.id === 'aws.permissions')).toMatchObject({ ok: true, detail: expect.stringContaining('iam:SimulatePrincipalPolicy') });
    expect(checks.map((c) => c.id)).toEqual(expect.arrayContaining(['aws.identity', 'aws.cluster.demo', 'cluster.demo.rbac', 'cluster.demo.access-entry', 'slack.scopes', 'slack.channel.C0DEMO', 'slack.usergroup.S0ONCALL', 'redis.maxmemory-policy']));
    // Nothing doctor did changed the world.
    expect(s.world.calls.filter((c) => c.service !== 'sts')).toEqual([]);
  });

  it('assumes each roleArn and asks IAM about that role\'s permissions, and the bot role\'s sts:AssumeRole on it', async () => {
    const s = await sim('demo', { iamPolicy: policyWithout(POLICY, 'eks:ListInsights'), rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    writeFileSync(join(dir, 'role.yaml'), 'clusters:\n  - { name: demo, region: us-west-2, roleArn: "arn:aws:iam::111122223333:role/eks-upgrade-bot-demo", channels: [C0DEMO], requesters: [U0REQ], approvers: [S0ONCALL] }\n');
    const { checks } = await doctor(s, ['--clusters-file', join(dir, 'role.yaml')]);
    expect(checks.find((c) => c.id === 'aws.role.demo')).toMatchObject({ ok: true, detail: expect.stringContaining('assumed-role/eks-upgrade-bot-demo/eks-upgrade-bot') });
    expect(checks.find((c) => c.id === 'aws.permissions')).toMatchObject({ ok: true });
    expect(failures(checks)).toEqual([{ id: 'aws.permissions.eks-upgrade-bot-demo', missing: ['eks:ListInsights'] }]);
  });

  it('says what it can of Karpenter: NodePools without a visible controller are not checked, not passed', async () => {
    const s = await sim('karpenter-lab', { iamPolicy: POLICY, rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    writeFileSync(join(dir, 'karpenter.yaml'), 'clusters:\n  - { name: eksworkshop-eksctl, region: us-west-2, channels: [C0DEMO], requesters: [U0REQ], approvers: [S0ONCALL] }\n');
    const { checks } = await doctor(s, ['--clusters-file', join(dir, 'karpenter.yaml')]);
    expect(checks.find((c) => c.id === 'cluster.eksworkshop-eksctl.karpenter')).toMatchObject({ ok: null, detail: expect.stringMatching(/NodePool\(s\) but no Karpenter controller Deployment/) });
    expect(failures(checks)).toEqual([]);
  });

  it('under the policy less one action, names exactly that action and the statement to add it to; exit 1', async () => {
    const s = await sim('demo', { iamPolicy: policyWithout(POLICY, 'eks:UpdateNodegroupVersion'), rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    const { code, checks } = await doctor(s);
    expect(failures(checks)).toEqual([{ id: 'aws.permissions', missing: ['eks:UpdateNodegroupVersion'] }]);
    expect(checks.find((c) => c.id === 'aws.permissions')!.fix).toBe('add "eks:UpdateNodegroupVersion" to the Action list of statement EksNodegroups in deploy/iam/permissions-policy.json');
    expect(code).toBe(1);
  });

  it('where iam:SimulatePrincipalPolicy is refused, proves the reads by making them and shows the rest as not checked', async () => {
    const policy = policyWithout(policyWithout(POLICY, 'iam:SimulatePrincipalPolicy'), 'ec2:DescribeSubnets');
    const s = await sim('demo', { iamPolicy: policy, rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    const { checks } = await doctor(s);
    expect(failures(checks)).toEqual([{ id: 'aws.permissions.reads', missing: ['ec2:DescribeSubnets'] }]);
    const others = checks.find((c) => c.id === 'aws.permissions.others')!;
    expect(others.ok).toBeNull();
    expect(others.detail).toContain('eks:UpdateClusterVersion');
    expect(s.world.calls.filter((c) => c.service !== 'sts')).toEqual([]);
  });

  it('under the ClusterRole less one verb, names exactly that verb and resource', async () => {
    const rbac = loadRbacFile('deploy/rbac/cluster-role.yaml').map((o: any) => o.kind !== 'ClusterRole' ? o : {
      ...o,
      rules: o.rules.map((r: any) => (r.resources.includes('pods/eviction') ? { ...r, verbs: r.verbs.filter((v: string) => v !== 'create') } : r)).filter((r: any) => r.verbs.length > 0),
    });
    const s = await sim('demo', { iamPolicy: POLICY, rbac: { objects: rbac } });
    const { checks } = await doctor(s);
    expect(failures(checks)).toEqual([{ id: 'cluster.demo.rbac', missing: ['create pods/eviction'] }]);
  });

  it('a Slack token lacking files:write and a channel the bot is not in: exactly those', async () => {
    const s = await sim('demo', { iamPolicy: POLICY, rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    const before = fake;
    fake = await startFakeSlack({ signingSecret: SECRET, userGroups: { S0ONCALL: ['U0APP'] }, botChannels: ['C0OTHER'], botScopes: ['commands', 'chat:write', 'chat:write.public', 'usergroups:read', 'users:read', 'channels:read', 'groups:read', 'channels:history', 'groups:history', 'im:history'] });
    try {
      const { checks } = await doctor(s);
      expect(failures(checks)).toEqual([{ id: 'slack.scopes', missing: ['files:write'] }, { id: 'slack.channel.C0DEMO', missing: ['C0DEMO'] }]);
      expect(checks.find((c) => c.id === 'slack.channel.C0DEMO')!.fix).toMatch(/^invite it: \/invite @eks-upgrade in #c0demo$/);
    } finally {
      await fake.close();
      fake = before;
    }
  });

  it('a Redis with maxmemory-policy allkeys-lru: that setting', async () => {
    const s = await sim('demo', { iamPolicy: POLICY, rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    // Port 1 never answers, so this starts a throwaway redis-server of the test's own, which it may reconfigure.
    lru = await ensureRedis('redis://127.0.0.1:1');
    const { Redis } = await import('ioredis');
    const admin = new Redis(lru.url);
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    await admin.quit();
    const { checks } = await doctor(s, [], { REDIS_URL: lru.url });
    expect(failures(checks)).toEqual([{ id: 'redis.maxmemory-policy', missing: ['maxmemory-policy noeviction'] }]);
    expect(checks.find((c) => c.id === 'redis.maxmemory-policy')!.detail).toContain('allkeys-lru');
  });
});
