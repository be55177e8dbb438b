import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../support/until.js';

/**
 * `npm run sim` as a user runs it (node --import tsx src/sim/services/cli.ts …): it says where it listens and how to
 * point clients at it, writes the kubeconfig, serves EKS, exits cleanly on SIGTERM, and refuses bad input with a
 * clear message and exit code 2.
 */
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startCli(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sim/services/cli.ts', ...args], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

const printed = (read: () => string, pattern: RegExp): Promise<RegExpMatchArray> => until(() => read().match(pattern), () => `the CLI to print ${pattern}; output so far:\n${read()}`);

describe('npm run sim', () => {
  it('prints the URL and the environment to use, writes the kubeconfig, serves EKS and stops on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
    const kubeconfig = join(dir, 'sim.kubeconfig');
    const cli = startCli(['--scenario', 'demo', '--port', '0', '--speed', '60', '--kubeconfig', kubeconfig, '--quiet']);
    const [, url] = await printed(cli.output, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(cli.output()).toContain(`export AWS_ENDPOINT_URL=${url} AWS_REGION=us-west-2`);
    expect(existsSync(kubeconfig)).toBe(true);
    expect(readFileSync(kubeconfig, 'utf8')).toContain(`server: ${url}/k8s/demo`);
    const res = await fetch(`${url}/clusters/demo`);
    expect((await res.json()).cluster.version).toBe('1.30');

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.output()).toContain('SIGTERM received, shutting down');
    await expect(fetch(`${url}/clusters/demo`)).rejects.toThrow();
  });

  it('refuses an unknown scenario and bad flags with exit code 2 and a message naming the problem', async () => {
    const unknown = startCli(['--scenario', 'nope', '--port', '0']);
    const badSpeed = startCli(['--scenario', 'demo', '--speed', 'fast']);
    const clustersWithoutFleet = startCli(['--scenario', 'demo', '--clusters', '3']);
    const badRelax = startCli(['--scenario', 'demo', '--port', '0', '--relax', 'ordered-lists,bogus']);
    expect(await Promise.all([unknown.exited, badSpeed.exited, clustersWithoutFleet.exited, badRelax.exited])).toEqual([2, 2, 2, 2]);
    expect(badRelax.output()).toContain('--relax bogus: not a simulator rule; choose from ordered-lists');
    expect(unknown.output()).toMatch(/unknown scenario "nope": choose one of [a-z, -]*\bdemo\b/);
    expect(badSpeed.output()).toContain('--speed must be a positive number, got "fast"');
    expect(clustersWithoutFleet.output()).toContain('--clusters only applies to --scenario fleet or scale');
  });

  it('generates a fleet of N clusters', async () => {
    const cli = startCli(['--scenario', 'fleet', '--clusters', '12', '--port', '0', '--quiet']);
    const [, url] = await printed(cli.output, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    // One page of up to maxResults (EKS answers a small page when none is given).
    const { clusters } = await (await fetch(`${url}/clusters?maxResults=100`)).json();
    expect(clusters).toHaveLength(12);
    // In no particular order, as EKS lists them.
    expect(clusters).toContain('prod-012');
    // Every tenth cluster's Kubernetes API drops connections; the others answer.
    await expect(fetch(`${url}/k8s/dev-010/version`)).rejects.toThrow();
    expect((await (await fetch(`${url}/k8s/staging-011/version`)).json()).gitVersion).toMatch(/^v1\.\d+\.\d+-eks-/);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
