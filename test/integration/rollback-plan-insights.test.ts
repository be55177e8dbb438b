import { afterAll, beforeAll, expect, it } from 'vitest';
import { planCommand } from '../../commands/plan.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createLogger } from '../../src/log/logger.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import { INSIGHTS_REFRESH_MS, type SimServer } from '@eks-upgrade-bot/sim';
import { createFakeUpgradeControl } from '../support/fake-upgrade-control.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { createTestAuditLog } from '../support/test-audit-log.js';
import { simSources } from './read-path-harness.js';

/**
 * `plan <cluster> --rollback` waits for an insights refresh as `plan` does: the cluster's whole
 * `checks.insightsRefreshWaitSeconds` (120 s by default), not a fixed 30 s, since EKS takes about a minute to rescan
 * (the simulator: INSIGHTS_REFRESH_MS). On the simulator's clock, so the minute passes at its speed.
 */
const CONFIG = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] }] });
const auditLog = createTestAuditLog();
let sim: SimServer;

beforeAll(async () => {
  // The command's 240 s deadline for reading the cluster runs on this clock too: at 600× it was 0.4 s of wall time,
  // which a machine at load 20 overran (a full suite run, DeadlineExceeded). At 30× the rescan's minute is 2 s and
  // the deadline 8 s (the read around the rescan took 0.6 s of wall time at load 10).
  sim = await startSim('demo-rollback', { speed: 30 });
});
afterAll(async () => {
  await sim?.close();
  await auditLog.close();
});

it('plan --rollback reads insights refreshed after a minute-long rescan, not the stale ones', async () => {
  expect(INSIGHTS_REFRESH_MS).toBeGreaterThan(30_000);
  sim.world.clusters.get('demo')!.insightsRefreshedAt = sim.world.clock.now() - 20 * 3600_000;
  const deps = {
    config: CONFIG,
    ...(({ eks, ec2, ssm, kube }) => ({ eks, ec2, ssm, kube }))(simSources(sim)),
    control: createFakeUpgradeControl(),
    audit: auditLog.audit,
    usergroups: { members: async () => [] },
    clock: sim.world.clock,
    logger: createLogger({ level: 'silent' }),
  } as unknown as BotDeps;
  const replies: SlackMessage[] = [];
  await planCommand({ args: ['demo', '--rollback'], userId: 'U0REQ', channelId: 'C0OPS', deps, respond: async (message) => void replies.push(message) });
  const text = JSON.stringify(replies);
  expect(sim.world.calls.filter((call) => call.operation === 'StartInsightsRefresh')).toHaveLength(1);
  expect(text).not.toContain('could not be refreshed');
  expect(text).not.toContain('did not finish within');
  expect(text).toContain('Rollback');
});
