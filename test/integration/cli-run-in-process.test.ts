import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * The CLI's logic in process (runCli with the real SDK adapters against the simulator), for the cases that do not
 * need a child process each: multi-hop JSON, refusals with their exact one-line messages, clusters without a
 * clusters file, help. cli-eks-upgrade.test.ts covers the real `node bin/eks-upgrade.js`.
 */
let sim: SimServer;

beforeAll(async () => {
  sim = await startSim('workshop', { speed: 600 });
  await settled(sim, 'eksworkshop-eksctl');
});
afterAll(async () => sim?.close());

async function cli(args: string[], env: NodeJS.ProcessEnv = { AWS_REGION: 'us-west-2' }) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    env,
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    sources: () => simSources(sim),
    fileExists: () => false,
  });
  return { code, stdout, stderr };
}

describe('eks-upgrade (in process)', () => {
  it('plan --to 1.28 --output json: three hops, exit 2', async () => {
    const result = await cli(['plan', 'eksworkshop-eksctl', '--to', '1.28', '--output', 'json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).hops.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['1.25→1.26', '1.26→1.27', '1.27→1.28']);
  });

  it('refuses in one line: downgrade, same version, beyond what EKS offers, no region', async () => {
    expect(await cli(['plan', 'eksworkshop-eksctl', '--to', '1.24'])).toEqual({ code: 1, stdout: '', stderr: "eks-upgrade: 1.24 is not newer than eksworkshop-eksctl's 1.25; EKS upgrades only move forward\n" });
    expect((await cli(['plan', 'eksworkshop-eksctl', '--to', '1.25'])).stderr).toBe('eks-upgrade: eksworkshop-eksctl is already at 1.25; there is nothing to plan (give --to a newer minor)\n');
    expect((await cli(['plan', 'eksworkshop-eksctl', '--to', '1.40'])).stderr).toMatch(/^eks-upgrade: EKS does not offer 1.40 in us-west-2; the newest it offers is 1\.\d+ \(offered: [\d., ]+\)\.\n$/);
    expect(await cli(['status', 'eksworkshop-eksctl'], {})).toEqual({ code: 1, stdout: '', stderr: 'eks-upgrade: eksworkshop-eksctl is not in any clusters file; give its region with --region (or AWS_REGION).\n' });
  });

  it('usage mistakes print the usage and exit 1; help exits 0', async () => {
    for (const args of [['status'], ['plan'], ['status', 'x', '--all'], ['plan', 'x', '--to', 'latest'], ['upgrade', 'x'], ['status', 'x', '--bogus']]) {
      const result = await cli(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^eks-upgrade: .+\nUsage:/);
    }
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('eks-upgrade plan <cluster> [--to <minor> | --rollback]');
  });

  it('status --all without a clusters file lists the clusters of the region', async () => {
    const result = await cli(['status', '--all', '--region', 'us-west-2'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CLUSTER\s+REGION\s+VERSION/);
    expect(result.stdout).toContain('eksworkshop-eksctl  us-west-2  1.25');
  });
});
