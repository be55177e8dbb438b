import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { parseFaultFlags } from '@eks-upgrade-bot/sim';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../support/until.js';

/**
 * `npm run sim -- --throttle-rate … --error-rate … --latency-ms …`: fault flags for the chaos suite, for every AWS
 * service or per service, checked with the real aws CLI (v1 reads AWS_DEFAULT_REGION).
 */
const run = promisify(execFile);
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]): { output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sim/services/cli.ts', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return { output: () => output, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

async function listening(read: () => string): Promise<string> {
  const [, url] = await until(() => read().match(/listening on (http:\/\/127\.0\.0\.1:\d+)/), () => `the simulator to start; it printed:\n${read()}`);
  return url;
}

const awsEnv = { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_DEFAULT_REGION: 'us-west-2', AWS_MAX_ATTEMPTS: '1', AWS_RETRY_MODE: 'standard' };

describe('simulator fault flags', () => {
  it('parses global and per-service rates and names a bad value', () => {
    expect(parseFaultFlags({ 'throttle-rate': '0.2', 'error-rate': 'eks=0.05,ssm=0.1', 'latency-ms': '100' })).toEqual({
      throttleRate: 0.2,
      latencyMs: 100,
      services: { eks: { errorRate: 0.05 }, ssm: { errorRate: 0.1 } },
    });
    expect(() => parseFaultFlags({ 'throttle-rate': 'lambda=0.2' })).toThrow('--throttle-rate: "lambda" is not one of eks, ssm, ec2, autoscaling, sts, monitoring');
    expect(() => parseFaultFlags({ 'error-rate': '5%' })).toThrow('--error-rate takes a share from 0 to 1 (e.g. 0.2), got "5%"');
  });

  it('throttles only the service named: the aws CLI sees EKS throttled while SSM answers', async () => {
    const cli = startCli(['--scenario', 'demo', '--port', '0', '--quiet', '--throttle-rate', 'eks=1']);
    const url = await listening(cli.output);
    const eks = await run('aws', ['--endpoint-url', url, 'eks', 'describe-cluster', '--name', 'demo'], { env: awsEnv }).catch((error) => error as { stderr: string });
    expect('stderr' in eks ? eks.stderr : '').toMatch(/ThrottlingException/);
    const ssm = await run('aws', ['--endpoint-url', url, 'ssm', 'get-parameter', '--name', '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id'], { env: awsEnv });
    expect(JSON.parse(ssm.stdout).Parameter.Value).toMatch(/^ami-/);
  });

  it('refuses a malformed rate with exit code 2 and the flag named', async () => {
    const cli = startCli(['--scenario', 'demo', '--port', '0', '--error-rate', 'eks=2']);
    expect(await cli.exited).toBe(2);
    expect(cli.output()).toContain('sim: --error-rate takes a share from 0 to 1 (e.g. 0.2), got "2"');
  });
});
