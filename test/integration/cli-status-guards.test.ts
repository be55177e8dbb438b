import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { cliGuardEvaluations } from '../../src/cli/main.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createGuardEvaluationStore } from '../../src/store/guard-evaluation-store.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { settled, simSources } from './read-path-harness.js';

/**
 * `eks-upgrade status <cluster>` shows each guard's last evaluation as the bot's jobs and soaks recorded it in Redis
 * (issue 29), read through the CLI's own Redis wiring (src/cli/main.ts); it never reads the guards (their servers
 * here do not exist). A guard never evaluated says so, and a Redis that does not answer is one sentence.
 */
let sim: SimServer;
const prefix = freshPrefix('cli-guards');
const dir = mkdtempSync(join(tmpdir(), 'cli-guards-'));
const clustersFile = join(dir, 'clusters.yaml');

beforeAll(async () => {
  sim = await startSim('demo', { speed: 600 });
  await settled(sim, 'demo');
  writeFileSync(clustersFile, `clusters:
  - name: demo
    region: us-west-2
    channels: [C0DEMO]
    requesters: [U0REQ]
    approvers: [U0APP]
    guards:
      - name: web available
        prometheus: { url: "http://127.0.0.1:1", query: 'min(kube_deployment_status_replicas_available{deployment="web"})', breachWhen: "< 3" }
      - name: critical alerts
        alertmanager: { url: "http://127.0.0.1:1", matchers: ['severity="critical"'] }
`);
});
afterAll(async () => {
  await sim?.close();
  await deleteKeys(`${prefix}:*`);
});

async function status(env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['status', 'demo', '--clusters-file', clustersFile], {
    env: { AWS_REGION: 'us-west-2', ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    sources: () => simSources(sim),
    guardEvaluations: cliGuardEvaluations,
  });
  return { code, stdout, stderr };
}

describe('eks-upgrade status <cluster> with guards', () => {
  it("shows each guard's last evaluation by a job, and one never evaluated as such", async () => {
    const redis = new Redis(redisUrl);
    const at = Date.parse('2026-12-02T14:03:07Z');
    await createGuardEvaluationStore(redis, prefix).record('demo', { 'web available': { status: 'breached', value: 1, at, since: at - 60_000, troubleSince: at - 60_000, by: 'upgrade job `u1234567`' } });
    await redis.quit();
    const result = await status({ REDIS_URL: redisUrl, QUEUE_PREFIX: prefix });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("GUARDS — each one's last evaluation by an upgrade job or a rollout's soak; status does not read them\n");
    expect(result.stdout).toContain('  🔴 web available: breached, 1 (breached when < 3); read 14:03:07 UTC (2026-12-02) by upgrade job `u1234567`\n');
    expect(result.stdout).toContain('  ⏳ critical alerts: not evaluated since no job ran, watches alerts matching severity="critical"\n');
  });

  it('says in a sentence when the bot\'s Redis does not answer', async () => {
    const result = await status({ REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: prefix });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  The bot's Redis (redis://127.0.0.1:1) did not answer, so the guards' last evaluations cannot be shown; set REDIS_URL (and QUEUE_PREFIX) to the bot's Redis.\n");
  });
});
