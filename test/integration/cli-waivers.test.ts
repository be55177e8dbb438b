import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { connectWaiverStore } from '../../src/waivers/store/connect-waiver-store.js';
import { createWaiverStore } from '../../src/waivers/store/redis-waiver-store.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';
import { simSources } from './read-path-harness.js';

/**
 * `eks-upgrade plan` and waivers: it counts the Slack waivers in Redis when REDIS_URL answers, otherwise plans on
 * clusters.yaml's alone and says so; JSON marks waived findings `waived: {by, reason, until}`; the exit code counts
 * only unwaived errors. The preflight-lab cluster's one blocker is K8S004 on store/payments.
 */
const DAY = 24 * 3600_000;
let sim: SimServer;
const dir = mkdtempSync(join(tmpdir(), 'cli-waivers-'));
const prefix = freshPrefix('cli-waivers');

function clustersFile(waivers: unknown[]): string {
  const file = join(dir, `clusters-${waivers.length}.yaml`);
  const yaml = [
    'clusters:',
    '  - name: lab',
    '    region: us-west-2',
    '    channels: [C0LAB]',
    '    requesters: [U0REQ]',
    '    approvers: [U0APP]',
    '    checks: { insightsMaxAgeHours: 48 }',
    `    waivers: ${JSON.stringify(waivers)}`,
  ].join('\n');
  writeFileSync(file, yaml);
  return file;
}

async function plan(file: string, env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['plan', 'lab', '--to', '1.31', '--output', 'json', '--clusters-file', file], {
    env: { AWS_REGION: 'us-west-2', ...env },
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    sources: () => simSources(sim),
    waiverStore: (e) => connectWaiverStore(e.REDIS_URL!, e.QUEUE_PREFIX!, 500),
  });
  return { code, json: stdout ? JSON.parse(stdout) : undefined, stderr };
}

beforeAll(async () => {
  sim = await startSim('preflight-lab', { speed: 600 });
  const store = sim.world.kube('lab')!;
  await until(
    () =>
      store.list('statefulsets').every((s) => s.status?.readyReplicas === s.spec?.replicas) &&
      store.list('poddisruptionbudgets').every((p) => p.metadata.name === 'payments-pdb' || (p.status?.disruptionsAllowed ?? 0) >= 1),
    'lab to settle',
    { timeoutMs: 20_000 },
  );
});
afterAll(async () => {
  await sim?.close();
  await deleteKeys(`${prefix}:*`);
});

describe('eks-upgrade plan with waivers', () => {
  it('without Redis: clusters.yaml waivers alone, said in the JSON; exit 2 while K8S004 is unwaived', async () => {
    const result = await plan(clustersFile([]), { REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: prefix });
    expect(result.code).toBe(2);
    expect(result.json.waiverNote).toBe('Slack waivers not counted (Redis did not answer): clusters.yaml waivers only.');
    expect(result.json.findings.find((f: any) => f.code === 'K8S004').waived).toBeUndefined();
  });

  it('a clusters.yaml waiver unblocks: exit 0, the finding still listed with waived {by, reason, until}', async () => {
    const expires = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);
    const file = clustersFile([{ code: 'K8S004', resource: 'deployment/store/*', reason: 'payments is single-writer by design', expires, approvedBy: 'U0APP' }]);
    const result = await plan(file, { REDIS_URL: 'redis://127.0.0.1:1', QUEUE_PREFIX: prefix });
    expect(result.code).toBe(0);
    expect(result.json.blocking).toBe(false);
    expect(result.json.findings.find((f: any) => f.code === 'K8S004')).toMatchObject({ severity: 'error', waived: { by: 'U0APP', reason: 'payments is single-writer by design', until: new Date(Date.parse(expires) + DAY).toISOString() } });
  });

  it('with Redis: an approved Slack waiver counts; a pending one does not', async () => {
    const redis = new Redis(redisUrl);
    const store = createWaiverStore(redis, prefix, () => `w${Math.random().toString(16).slice(2, 8)}`);
    try {
      const waiver = await store.request({ cluster: 'lab', code: 'K8S004', resource: 'deployment/store/payments', reason: 'agreed in #payments for this window', expiresAt: Date.now() + DAY, requestedBy: 'U0REQ' }, Date.now());
      const pending = await plan(clustersFile([]), { REDIS_URL: redisUrl, QUEUE_PREFIX: prefix });
      expect(pending.code).toBe(2);
      expect(pending.json.waiverNote).toBeUndefined();
      expect((await store.approve(waiver.id, 'U0APP', Date.now())).outcome).toBe('done');
      const approved = await plan(clustersFile([]), { REDIS_URL: redisUrl, QUEUE_PREFIX: prefix });
      expect(approved.code).toBe(0);
      expect(approved.json.findings.find((f: any) => f.code === 'K8S004').waived).toMatchObject({ by: 'U0APP', reason: 'agreed in #payments for this window' });
    } finally {
      await redis.quit();
    }
  });
});

describe('the waiver store', () => {
  it('two approvers at once approve once; a revoked waiver cannot be approved; the audit keeps every step', async () => {
    const redis = new Redis(redisUrl);
    const store = createWaiverStore(redis, prefix, () => 'race-1');
    try {
      const waiver = await store.request({ cluster: 'lab', code: 'AVL001', resource: 'deployment/store/payments', reason: 'scaled up next sprint', expiresAt: Date.now() + DAY, requestedBy: 'U0REQ' }, 1_000);
      const outcomes = await Promise.all([store.approve(waiver.id, 'U0APP', 2_000), store.approve(waiver.id, 'U0OTHER', 2_000)]);
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['done', 'not-allowed']);
      expect((await store.revoke(waiver.id, 'U0APP', 3_000)).outcome).toBe('done');
      const late = await store.approve(waiver.id, 'U0APP', 4_000);
      expect(late).toMatchObject({ outcome: 'not-allowed', waiver: { state: 'revoked', closedBy: 'U0APP' } });
      expect((await store.audit(waiver.id)).map((e) => e.action)).toEqual(['requested', 'approved', 'revoked']);
      expect(await store.approve('missing', 'U0APP', 5_000)).toEqual({ outcome: 'unknown' });
    } finally {
      await redis.quit();
    }
  });
});
