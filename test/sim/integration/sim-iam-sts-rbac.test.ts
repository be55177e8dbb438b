import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DescribeClusterCommand, EKSClient, ListClustersCommand } from '@aws-sdk/client-eks';
import { DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { AssumeRoleCommand, GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { describe, expect, it } from 'vitest';
import { createEksPortFactory } from '../../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../../src/kube/client-node-adapter.js';
import { loadIamPolicyFile, loadRbacFile, type PolicyDocument } from '@eks-upgrade-bot/sim';
import { SIM_CREDENTIALS, simClientConfig, simEnv, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * The simulator as the bot's AWS account and clusters see it with access enforced: STS (the real STS client and
 * `aws sts`), IAM policy denials in each service's own error shape, and Kubernetes RBAC for the identity inside the
 * EKS token — the assumed role's session when the cluster has a roleArn.
 */
const run = promisify(execFile);
const sim = useSim();
const POLICY = loadIamPolicyFile('deploy/iam/permissions-policy.json');
const RBAC = loadRbacFile('deploy/rbac/cluster-role.yaml');
const ROLE = 'arn:aws:iam::111122223333:role/eks-upgrade-bot-demo';

function without(policy: PolicyDocument, action: string): PolicyDocument {
  const statements = Array.isArray(policy.Statement) ? policy.Statement : [policy.Statement];
  return {
    ...policy,
    Statement: statements.map((s) => ({ ...s, Action: (Array.isArray(s.Action) ? s.Action : [s.Action!]).filter((a) => a !== action) })).filter((s) => s.Action.length > 0),
  };
}

describe('STS on the simulator', () => {
  it('answers GetCallerIdentity for `aws sts get-caller-identity`, and AssumeRole gives a session that is the role', async () => {
    const s = await sim('demo');
    const { stdout } = await run('aws', ['--endpoint-url', s.url, '--region', 'us-west-2', '--output', 'json', 'sts', 'get-caller-identity'], { env: simEnv(s), timeout: 20_000 });
    expect(JSON.parse(stdout)).toMatchObject({ Account: '111122223333', Arn: `arn:aws:iam::111122223333:user/${SIM_CREDENTIALS.accessKeyId}` });

    const sts = new STSClient(simClientConfig(s));
    const assumed = await sts.send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'eks-upgrade-bot' }));
    expect(assumed.AssumedRoleUser?.Arn).toBe('arn:aws:sts::111122223333:assumed-role/eks-upgrade-bot-demo/eks-upgrade-bot');
    expect(assumed.Credentials?.AccessKeyId).toMatch(/^ASIA/);
    expect(assumed.Credentials!.Expiration!.getTime()).toBeGreaterThan(Date.now());
    const asRole = new STSClient({
      ...simClientConfig(s),
      credentials: { accessKeyId: assumed.Credentials!.AccessKeyId!, secretAccessKey: assumed.Credentials!.SecretAccessKey!, sessionToken: assumed.Credentials!.SessionToken! },
    });
    expect((await asRole.send(new GetCallerIdentityCommand({}))).Arn).toBe('arn:aws:sts::111122223333:assumed-role/eks-upgrade-bot-demo/eks-upgrade-bot');

    await expect(sts.send(new AssumeRoleCommand({ RoleArn: 'not-a-role', RoleSessionName: 'x1' }))).rejects.toMatchObject({ name: 'ValidationError' });
    const forged = { accessKeyId: 'ASIANEVERISSUED0001', secretAccessKey: 'x', sessionToken: 'x' };
    await expect(new EKSClient({ ...simClientConfig(s), credentials: forged }).send(new ListClustersCommand({}))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
  });
});

describe('IAM policy enforcement', () => {
  it('allows what deploy/iam/permissions-policy.json allows and denies a removed action in each service\'s own words', async () => {
    const allowed = await sim('workshop', { iamPolicy: POLICY });
    const eks = new EKSClient(simClientConfig(allowed));
    expect((await eks.send(new ListClustersCommand({}))).clusters).toContain('eksworkshop-eksctl');
    expect((await eks.send(new DescribeClusterCommand({ name: 'eksworkshop-eksctl' }))).cluster?.version).toBe('1.25');

    const s = await sim('workshop', {
      iamPolicy: without(without(without(without(POLICY, 'eks:DescribeCluster'), 'ec2:DescribeSubnets'), 'ssm:GetParameter'), 'sts:AssumeRole'),
    });
    const user = `arn:aws:iam::111122223333:user/${SIM_CREDENTIALS.accessKeyId}`;
    await expect(new EKSClient(simClientConfig(s)).send(new DescribeClusterCommand({ name: 'eksworkshop-eksctl' }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403 },
      message: `User: ${user} is not authorized to perform: eks:DescribeCluster on resource: arn:aws:eks:us-west-2:111122223333:cluster/eksworkshop-eksctl because no identity-based policy allows the eks:DescribeCluster action`,
    });
    const ec2 = new EC2Client(simClientConfig(s)).send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-1'] }));
    await expect(ec2).rejects.toMatchObject({ name: 'UnauthorizedOperation' });
    await expect(ec2).rejects.toThrow(/^You are not authorized to perform this operation\. User: .* is not authorized to perform: ec2:DescribeSubnets on resource: \* because no identity-based policy allows the ec2:DescribeSubnets action\. Encoded authorization failure message: /);
    await expect(new SSMClient(simClientConfig(s)).send(new GetParameterCommand({ Name: '/aws/service/eks/optimized-ami/1.26/amazon-linux-2023/x86_64/standard/recommended/image_id' }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('ssm:GetParameter on resource: arn:aws:ssm:us-west-2::parameter/aws/service/eks/optimized-ami/1.26/'),
    });
    await expect(new STSClient(simClientConfig(s)).send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'eks-upgrade-bot' }))).rejects.toMatchObject({
      name: 'AccessDenied',
      message: `User: ${user} is not authorized to perform: sts:AssumeRole on resource: ${ROLE} because no identity-based policy allows the sts:AssumeRole action`,
    });

    // The aws CLI reads the same error the SDK does.
    const cli = await run('aws', ['--endpoint-url', s.url, '--region', 'us-west-2', 'eks', 'describe-cluster', '--name', 'eksworkshop-eksctl'], { env: simEnv(s), timeout: 20_000 }).catch((e) => e);
    expect(String(cli.stderr)).toContain('An error occurred (AccessDeniedException) when calling the DescribeCluster operation: User: arn:aws:iam::111122223333:user/test is not authorized to perform: eks:DescribeCluster');

    // An explicit Deny wins over the Allow, and says so.
    const denied = await sim('demo', { iamPolicy: { ...POLICY, Statement: [...(POLICY.Statement as object[]), { Effect: 'Deny', Action: 'eks:ListClusters', Resource: '*' }] } as PolicyDocument });
    await expect(new EKSClient(simClientConfig(denied)).send(new ListClustersCommand({}))).rejects.toThrow(/eks:ListClusters on resource: \* with an explicit deny in an identity-based policy/);
  });
});

describe('Kubernetes RBAC for the identity in the EKS token', () => {
  it('lets the assumed role do what deploy/rbac/cluster-role.yaml grants and answers 403 in the apiserver\'s words otherwise', async () => {
    const s = await sim('demo', { iamPolicy: POLICY, rbac: { objects: RBAC } });
    const eks = createEksPortFactory({ endpoint: s.url, credentials: SIM_CREDENTIALS });
    const kube = await createKubePortFactory({ eks, credentials: SIM_CREDENTIALS, aws: { endpoint: s.url } })({ name: 'demo', region: 'us-west-2', roleArn: ROLE });
    expect((await kube.list('nodes')).items.length).toBeGreaterThan(0);
    const session = 'arn:aws:sts::111122223333:assumed-role/eks-upgrade-bot-demo/eks-upgrade-bot';

    // Not in the ClusterRole: patching a namespace.
    await expect(kube.patch('namespaces', 'default', { metadata: { labels: { a: 'b' } } }, { type: 'merge' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining(`namespaces "default" is forbidden: User "${session}" cannot patch resource "namespaces" in API group "" at the cluster scope`),
    });

    // The same file without the Karpenter patch rules: the NodePool patch is refused, naming the verb and group.
    const readOnly = RBAC.map((o) => (o.kind === 'ClusterRole' ? { ...o, rules: (o.rules as Array<{ verbs: string[] }>).filter((r) => !r.verbs.includes('patch') && !r.verbs.includes('create')) } : o));
    const karpenter = await sim('karpenter-lab', { iamPolicy: POLICY, rbac: { objects: readOnly } });
    const kube2 = await createKubePortFactory({ eks: createEksPortFactory({ endpoint: karpenter.url, credentials: SIM_CREDENTIALS }), credentials: SIM_CREDENTIALS })({ name: 'eksworkshop-eksctl', region: 'us-west-2' });
    await expect(kube2.patch('nodepools', 'default', { spec: { disruption: { budgets: [{ nodes: '1' }] } } }, { type: 'merge' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining(`nodepools.karpenter.sh "default" is forbidden: User "arn:aws:iam::111122223333:user/test" cannot patch resource "nodepools" in API group "karpenter.sh" at the cluster scope`),
    });
    await expect(kube2.evictPod('checkout', 'nope')).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('cannot create resource "pods/eviction" in API group "" in the namespace "checkout"'),
    });
  });

  it('rejects a token whose session key the simulator never issued with 401', async () => {
    const s = await sim('demo', { rbac: { objects: RBAC } });
    const forged = `k8s-aws-v1.${Buffer.from('https://sts.us-west-2.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Credential=ASIAFORGED%2F20260101%2Fus-west-2%2Fsts%2Faws4_request&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id&X-Amz-Signature=00').toString('base64url')}`;
    const res = await fetch(`${s.url}/k8s/demo/api/v1/nodes`, { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
