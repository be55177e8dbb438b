import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { runCli } from '../../src/cli/run-cli.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * Issue 25: `plan demo --rollback` on a cluster created at its version (never upgraded in place) says a rollback is
 * not possible and why (RBK002, which cannot be forced), and prints no steps — not a 13-step plan EKS would refuse.
 */
let sim: SimServer;

beforeAll(async () => {
  sim = await startSim('demo', { speed: 600 });
  await settled(sim, 'demo');
});
afterAll(async () => sim?.close());

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env: { AWS_REGION: 'us-west-2' }, stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), sources: () => simSources(sim), fileExists: () => false });
  return { code, stdout, stderr };
}

describe('plan --rollback of a cluster created at its version', () => {
  it('says the rollback is not possible and why, with no steps', async () => {
    const text = await cli(['plan', 'demo', '--rollback']);
    expect(text.code).toBe(2);
    expect(text.stdout.split('\n')[0]).toBe('A rollback of demo (us-west-2) from 1.30 to 1.29 is not possible: demo was not upgraded in place to 1.30 (EKS lists no successful version update to it), so EKS has nothing to roll back (RBK002, which cannot be forced).');
    expect(text.stdout).not.toMatch(/HOP 1|^\s+\d+\. /m);
    expect(text.stdout).toContain('No steps: a rollback only undoes an in-place upgrade');

    const json = JSON.parse((await cli(['plan', 'demo', '--rollback', '--output', 'json'])).stdout);
    expect(json).toMatchObject({ cluster: 'demo', blocking: true, hops: [] });
    const markdown = (await cli(['plan', 'demo', '--rollback', '--output', 'markdown'])).stdout;
    expect(markdown).toContain('**A rollback is not possible:**');
    expect(markdown).not.toMatch(/^\d+\. /m);
  });
});
