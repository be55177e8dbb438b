import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { countMutatingCalls, type SimServer } from '@eks-upgrade-bot/sim';
import { runCli } from '../../src/cli/run-cli.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * Issue 23 item 2: the documented workshop rehearsal, `eks-upgrade rehearse eksworkshop-eksctl --to 1.26 --answers
 * remedy` with a clusters file naming the cluster, ends with its report in bounded time and succeeds — with every
 * node group in place (the default) and with the blue/green example for `blue-mng*`. It looped before: each Force
 * on the blocked drain of blue-mng got the failed update of the first attempt back (the attempt was cut off the end
 * of a clientRequestToken longer than 64 characters), and the gate opened again, 1,735 times.
 */
const CLUSTER = 'eksworkshop-eksctl';
let sim: SimServer;
const prefixes: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'rehearse-cli-'));

beforeAll(async () => {
  sim = await startSim('workshop', { speed: 600 });
  await settled(sim, CLUSTER);
});
afterAll(async () => {
  await sim?.close();
  for (const prefix of prefixes) await deleteKeys(`${prefix}*`);
});

async function rehearse(entry: Record<string, unknown>, name: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify({ clusters: [{ name: CLUSTER, region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], ...entry }] }));
  const prefix = freshPrefix('rehearse-cli');
  prefixes.push(prefix);
  let stdout = '';
  let stderr = '';
  const code = await runCli(['rehearse', CLUSTER, '--to', '1.26', '--answers', 'remedy', '--clusters-file', file], {
    env: { AWS_REGION: 'us-west-2', REDIS_URL: redisUrl, QUEUE_PREFIX: prefix },
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    sources: () => simSources(sim),
    fileExists: (path) => path === file,
  });
  if (process.env.E2E_PRINT) console.log(stdout, stderr);
  return { code, stdout, stderr, gates: stderr.split('\n').filter((line) => line.includes('REHEARSAL · gate:')) };
}

describe('rehearse eksworkshop-eksctl --to 1.26 --answers remedy (the documented rehearsal)', () => {
  it('succeeds with every node group in place (the default strategies)', async () => {
    const result = await rehearse({}, 'default');
    expect(result.stdout).toMatch(/^REHEARSAL of eksworkshop-eksctl 1\.25 → 1\.26 on a simulated twin \(gates answered: remedy\): succeeded\./);
    expect(result.code).toBe(0);
    // The blocked drain of blue-mng is answered once with its remedy (scale orders), then the update passes.
    expect(result.gates.filter((line) => /blue-mng-\S+ could not drain its nodes/.test(line)).length).toBeLessThanOrEqual(2);
    // Bounded: the questions the plan announces (the workshop's plan now asks one per node group, Karpenter, the
    // self-managed groups and Fargate, issue 23.4) plus the drain block, each printed again when its job wakes — not
    // 1,735 lines of one. One run of the blue/green case asked 10 distinct questions.
    expect(new Set(result.gates).size).toBeLessThan(20);
    expect(result.gates.length).toBeLessThan(60);
    expect(countMutatingCalls(sim)).toBe(0);
  }, 240_000);

  it('succeeds with the blue/green example for blue-mng*', async () => {
    const result = await rehearse({ nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, '*': { strategy: 'in-place' } } }, 'blue-green');
    expect(result.stdout).toMatch(/\(gates answered: remedy\): succeeded\./);
    expect(result.code).toBe(0);
    // Bounded: the questions the plan announces (the workshop's plan now asks one per node group, Karpenter, the
    // self-managed groups and Fargate, issue 23.4) plus the drain block, each printed again when its job wakes — not
    // 1,735 lines of one. One run of the blue/green case asked 10 distinct questions.
    expect(new Set(result.gates).size).toBeLessThan(20);
    expect(result.gates.length).toBeLessThan(60);
    expect(countMutatingCalls(sim)).toBe(0);
  }, 240_000);
});
