import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSoakGuards, soakHaltClauses, type SoakGuardsDeps } from '../../jobs/rollout/rollout-soak-guards.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { GuardReading } from '../../src/ports/guards/guard-port.js';
import { createGuardEvaluationStore } from '../../src/store/guard-evaluation-store.js';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';

/**
 * The soak's guard check (jobs/rollout/rollout-soak-guards.ts) on a clock the test moves, with its tracks in the real Redis:
 * each guard is read once per interval, a Prometheus guard breaches only after `for` (carried across calls, as a
 * soak resumed on another worker carries it), an unreadable guard halts with onMissingData: halt and not with
 * ignore, and every evaluation is recorded for `status`. The sources are scripted here; the real Prometheus is in
 * rollout-soak-guards.test.ts.
 */
const prefix = freshPrefix('soak-guards');
const redis = new Redis(redisUrl);
afterAll(async () => {
  await deleteKeys(`${prefix}:*`);
  await redis.quit();
});

const who = { region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };
const config = parseClustersConfig({
  clusters: [
    { name: 'dev-a', ...who, guards: [{ name: 'ratio', prometheus: { url: 'http://prom:9090', query: 'up', breachWhen: '< 1', for: '20s' }, interval: '10s' }] },
    { name: 'dev-b', ...who, guards: [{ name: 'alerts', alertmanager: { url: 'http://am:9093', matchers: ['severity="critical"'] }, interval: '30s', onMissingData: 'ignore' }] },
    { name: 'dev-c', ...who, guards: [{ name: 'alarms', cloudwatch: { alarmNames: ['slo'] }, interval: '30s' }] },
  ],
});

function soak(readings: Record<string, () => GuardReading>) {
  let now = 1_700_000_000_000;
  const reads: string[] = [];
  const deps: SoakGuardsDeps = {
    config, now: () => now, redis, tracksKey: `${prefix}:rollout:r1:soak-guards:0`, evaluations: createGuardEvaluationStore(redis, prefix), by: 'the soak of wave 1 of rollout `r1`',
    logger: createLogger({ level: 'silent' }),
    reader: { read: async (guard) => (reads.push(guard.name), readings[guard.name]()), history: async () => undefined },
  };
  return { deps, reads, tick: (ms: number) => (now += ms) };
}

describe('the soak guard check', () => {
  it('reads each guard once per interval and breaches a Prometheus guard only after `for`', async () => {
    let value = 1;
    const { deps, reads, tick } = soak({ ratio: () => ({ kind: 'series', series: [{ labels: {}, value }] }) });
    expect(await checkSoakGuards(deps, ['dev-a'])).toEqual({ halting: [], nextDueInMs: 10_000 });
    tick(5_000);
    expect((await checkSoakGuards(deps, ['dev-a'])).nextDueInMs).toBe(5_000);
    expect(reads).toEqual(['ratio']);
    value = 0.5;
    tick(5_000);
    expect((await checkSoakGuards(deps, ['dev-a'])).halting).toEqual([]); // holding, not yet for 20 s
    tick(10_000);
    expect((await checkSoakGuards(deps, ['dev-a'])).halting).toEqual([]);
    tick(10_000);
    const { halting } = await checkSoakGuards(deps, ['dev-a']);
    expect(reads).toHaveLength(4);
    expect(soakHaltClauses(halting)).toEqual([expect.stringMatching(/^guard "ratio" of \*dev-a\* breached since \d\d:\d\d:\d\d UTC: 0\.5 \(breached when &lt; 1\)$/)]);
    expect((await createGuardEvaluationStore(redis, prefix).last('dev-a')).ratio).toMatchObject({ status: 'breached', value: 0.5, by: 'the soak of wave 1 of rollout `r1`' });
  });

  it('halts on a guard that cannot be read (onMissingData: halt), not on one set to ignore', async () => {
    const { deps } = soak({
      alerts: () => ({ kind: 'error', reason: 'cannot read guard alerts: Alertmanager at http://am:9093 cannot be reached (ECONNREFUSED)' }),
      alarms: () => ({ kind: 'error', reason: 'cannot read guard alarms: DescribeAlarms failed: AccessDenied: not allowed' }),
    });
    deps.tracksKey = `${prefix}:rollout:r2:soak-guards:0`;
    const { halting } = await checkSoakGuards(deps, ['dev-b', 'dev-c']);
    expect(halting.map((one) => `${one.cluster}/${one.guard.name}`)).toEqual(['dev-c/alarms']);
    expect(soakHaltClauses(halting)).toEqual([expect.stringMatching(/^guard "alarms" of \*dev-c\* could not be evaluated since \d\d:\d\d:\d\d UTC: cannot read guard alarms: DescribeAlarms failed: AccessDenied: not allowed \(onMissingData: halt\)$/)]);
  });

  it('reads nothing for a wave whose clusters have no guards', async () => {
    const { deps, reads } = soak({});
    expect(await checkSoakGuards({ ...deps, config: parseClustersConfig({ clusters: [{ name: 'plain', ...who }] }) }, ['plain'])).toEqual({ halting: [] });
    expect(reads).toEqual([]);
  });
});
