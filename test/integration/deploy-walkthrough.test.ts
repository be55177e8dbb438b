import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, type SimServer } from '@eks-upgrade-bot/sim';
import { startSim } from '@eks-upgrade-bot/sim/kit';

/**
 * docs/deploy.md, command by command, as a stranger would paste them (`bash`, the real `aws` CLI): the ones the
 * simulator serves (STS, EKS DescribeCluster) run against it; the others (ECR, IAM, EKS access entries and Pod
 * Identity, ElastiCache) run against a recorder, which proves the CLI accepted their arguments and shows what it
 * would send: the policy documents from deploy/iam/ with the placeholders filled, the service account in `sub`.
 */
const run = promisify(execFile);
type Recorded = { target?: string; path: string; form?: URLSearchParams; json?: any };
let sim: SimServer;
let recorder: Server;
let recorderUrl: string;
const recorded: Recorded[] = [];

beforeAll(async () => {
  // The walkthrough's home cluster, `tools`: the demo scenario's cluster under that name.
  const scenario = loadScenario('demo');
  sim = await startSim({ ...scenario, clusters: scenario.clusters.map((c: { name: string }) => ({ ...c, name: 'tools' })) });
  recorder = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const type = String(req.headers['content-type'] ?? '');
      recorded.push({
        target: req.headers['x-amz-target'] as string | undefined,
        path: req.url ?? '/',
        ...(type.includes('x-www-form-urlencoded') ? { form: new URLSearchParams(body) } : body ? { json: JSON.parse(body) } : {}),
      });
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"__type":"RecordedOnly","message":"recorded by the test"}');
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sim?.close();
  await new Promise((resolve) => recorder?.close(resolve));
});

/** The shell lines of docs/deploy.md's ```sh blocks, continuation lines joined. */
function shellLines(): string[] {
  const doc = readFileSync('docs/deploy.md', 'utf8');
  return [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].replace(/\\\n\s*/g, ' ').split('\n')).map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
}

const SERVED_BY_SIM = /aws (sts get-caller-identity|eks describe-cluster)/;

describe('docs/deploy.md, step by step', () => {
  it('every aws command is accepted by the aws CLI, and sends what the walkthrough means', async () => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, AWS_ACCESS_KEY_ID: 'AKIDDOCS', AWS_SECRET_ACCESS_KEY: 'docs', AWS_DEFAULT_REGION: 'us-west-2', AWS_PAGER: '', AWS_MAX_ATTEMPTS: '1' };
    const lines = shellLines();
    const awsLines = lines.filter((l) => /(^|\$\()aws /.test(l) && !l.includes('docker login'));
    expect(awsLines.length).toBeGreaterThanOrEqual(10);
    for (const line of lines) {
      const exported = /^export (\w+)=(.*)$/.exec(line);
      if (exported) {
        const endpoint = SERVED_BY_SIM.test(line) ? sim.url : recorderUrl;
        const { stdout } = await run('bash', ['-c', `echo ${exported[2]}`], { env: { ...env, AWS_ENDPOINT_URL: endpoint } });
        env[exported[1]] = stdout.trim();
        continue;
      }
      if (line.startsWith('sed ')) {
        await run('bash', ['-c', line], { env });
        continue;
      }
      if (!line.startsWith('aws ') || line.includes('docker login')) continue;
      const before = recorded.length;
      const endpoint = SERVED_BY_SIM.test(line) ? sim.url : recorderUrl;
      const result = await run('bash', ['-c', line], { env: { ...env, AWS_ENDPOINT_URL: endpoint } }).then(
        (r) => ({ ok: true, stderr: r.stderr, stdout: r.stdout }),
        (e: { stderr?: string }) => ({ ok: false, stderr: String(e.stderr), stdout: '' }),
      );
      if (endpoint === sim.url) {
        expect({ line, ...result }).toMatchObject({ line, ok: true });
      } else {
        // The CLI validated the arguments and sent exactly one request: the recorder answered with an error.
        expect({ line, stderr: result.stderr }).toMatchObject({ line, stderr: expect.stringContaining('RecordedOnly') });
        expect(recorded.length - before).toBe(1);
      }
    }
    expect(env.ACCOUNT_ID).toBe('111122223333');
    expect(env.OIDC_PROVIDER).toMatch(/^oidc\.eks\.us-west-2\.amazonaws\.com\/id\/[0-9A-F]{32}$/);

    const action = (name: string) => recorded.filter((r) => r.form?.get('Action') === name).map((r) => r.form!);
    const [createPolicy] = action('CreatePolicy');
    expect(JSON.parse(createPolicy.get('PolicyDocument')!)).toEqual(JSON.parse(readFileSync('deploy/iam/permissions-policy.json', 'utf8')));
    const [irsa, podIdentity] = action('CreateRole').map((form) => JSON.parse(form.get('AssumeRolePolicyDocument')!));
    expect(irsa.Statement[0].Principal.Federated).toBe(`arn:aws:iam::111122223333:oidc-provider/${env.OIDC_PROVIDER}`);
    expect(irsa.Statement[0].Condition.StringEquals).toEqual({ [`${env.OIDC_PROVIDER}:aud`]: 'sts.amazonaws.com', [`${env.OIDC_PROVIDER}:sub`]: 'system:serviceaccount:eks-upgrade-bot:eks-upgrade-bot' });
    expect(podIdentity.Statement[0]).toMatchObject({ Principal: { Service: 'pods.eks.amazonaws.com' }, Action: ['sts:AssumeRole', 'sts:TagSession'] });
    expect(action('AttachRolePolicy').map((f) => f.get('PolicyArn'))).toEqual(['arn:aws:iam::111122223333:policy/eks-upgrade-bot', 'arn:aws:iam::111122223333:policy/eks-upgrade-bot']);

    const eks = (suffix: string) => recorded.find((r) => r.path.endsWith(suffix))!;
    expect(eks('/clusters/tools/pod-identity-associations').json).toMatchObject({ namespace: 'eks-upgrade-bot', serviceAccount: 'eks-upgrade-bot', roleArn: 'arn:aws:iam::111122223333:role/eks-upgrade-bot' });
    expect(eks('/clusters/prod-eu/access-entries').json).toMatchObject({ principalArn: 'arn:aws:iam::111122223333:role/eks-upgrade-bot', kubernetesGroups: ['eks-upgrade-bot'] });
    expect(recorded.find((r) => r.target?.endsWith('.CreateRepository'))!.json).toMatchObject({ repositoryName: 'eks-upgrade-bot' });
    const [parameters] = action('ModifyCacheParameterGroup');
    expect(Object.fromEntries([...parameters].filter(([k]) => k.startsWith('ParameterNameValues')))).toEqual({
      'ParameterNameValues.ParameterNameValue.1.ParameterName': 'maxmemory-policy',
      'ParameterNameValues.ParameterNameValue.1.ParameterValue': 'noeviction',
    });
    // About 20 runs of the Python aws CLI, a second or so each when the machine is quiet: a safety net for a loaded one.
  }, 600_000);
});
