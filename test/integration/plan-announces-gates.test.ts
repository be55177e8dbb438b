import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCommand } from '../../commands/start.js';
import { runCli } from '../../src/cli/run-cli.js';
import { createLogger } from '../../src/log/logger.js';
import { planHash } from '../../src/planning/planner/plan-hash.js';
import { nextMinorOf } from '../../src/planning/upgrade-path.js';
import { systemClock } from '../../src/ports/clock.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';
import type { StartRequest } from '../../src/ports/upgrade-control.js';
import type { Waiver } from '../../src/waivers/model/waiver.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { createFakeUpgradeControl } from '../support/fake-upgrade-control.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { createTestAuditLog } from '../support/test-audit-log.js';
import { settled, simSources } from './read-path-harness.js';
import { plannedGates } from './plan-equals-job.js';
import { SCENARIOS, clustersOf, configFor, people } from './plan-announces-gates-scenarios.js';

/**
 * Issue 23, item 4: the plan announces exactly the gates the job asks. For every shipped scenario:
 * - the plan `plan` prints (the CLI's JSON) and the plan a `start` made right after stores have the same planHash
 *   (one read-and-plan serves both: src/cluster-reader/read-and-plan.ts), and so have their findings — Slack waivers
 *   counted by both;
 * - a job run on that plan asks the plan's always-asked gates, same questions, same order; the gates asked only
 *   when something blocks (a drain held by a PDB, a custom AMI without a source, a forced preflight) are the ones
 *   the plan lists apart (plan-announces-gates-job.test.ts and plan-announces-gates-job-long.test.ts: files of their
 *   own, so the suite's workers run the parts side by side).
 */
// demo-throttled answers 30% of AWS calls with a throttle: retried as the bot's SDKs retry, both reads see it all.
const ATTEMPTS = 10;
/**
 * Waivers approved in Slack, which `plan` counts: the plan `start` stores counts them too. (A store that answers the
 * reads only: nothing here asks for or approves one.)
 */
function slackWaivers(cluster: string): WaiverStore {
  const waivers: Waiver[] = ['K8S003', 'INS001', 'AVL006'].map((code, i) => ({
    id: `w${i}`, cluster, code, resource: '**', reason: 'accepted for the test', expiresAt: Date.now() + 86_400_000,
    requestedBy: 'U0REQ', requestedAt: Date.now(), state: 'active', approvedBy: 'U0APP', approvedAt: Date.now(), source: 'slack',
  }));
  const refuse = async (): Promise<never> => { throw new Error('read-only waiver store'); };
  return { list: async (name) => waivers.filter((w) => !name || w.cluster === name), get: async (id) => waivers.find((w) => w.id === id), request: refuse, approve: refuse, reject: refuse, revoke: refuse, withdraw: refuse, audit: async () => [] };
}

describe('plan and start plan alike (issue 23)', () => {
  const auditLog = createTestAuditLog();
  let sim: SimServer | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it.each(SCENARIOS)('%s: the plan `plan` prints has the planHash of the plan `start` stores right after', async (scenario) => {
    sim = await startSim(scenario, { speed: 600 });
    const clusters = clustersOf(sim);
    // The same world for both reads: every pod placed and every PDB counted first (a scenario whose pods cannot all
    // run is read as it stands once the wait is over).
    for (const { name } of clusters) await settled(sim, name).catch(() => undefined);
    const config = configFor(clusters.map((c) => c.name));
    const dir = mkdtempSync(join(tmpdir(), 'i23-'));
    writeFileSync(join(dir, 'clusters.yaml'), JSON.stringify({ clusters: config.clusters.map(({ name }) => ({ name, region: 'us-west-2', ...people })) }));
    for (const { name, version } of clusters) {
      const to = nextMinorOf(version)!;
      let stdout = '';
      // --timeout 120: demo-throttled's reads retry with the SDK's real-time backoff, which on a busy machine outlasts
      // the CLI's default 20 s deadline; the hash is what is compared here, not the deadline.
      const code = await runCli(['plan', name, '--to', to, '--output', 'json', '--timeout', '120'], {
        env: { AWS_REGION: 'us-west-2', CLUSTERS_FILE: join(dir, 'clusters.yaml') },
        stdout: (text) => void (stdout += text),
        stderr: () => undefined,
        sources: () => simSources(sim!, ATTEMPTS),
        fileExists: () => false,
        waiverStore: async () => ({ store: slackWaivers(name), close: async () => undefined }),
      });
      expect([0, 2], `plan ${name} exited ${code}`).toContain(code);
      const printed = JSON.parse(stdout) as UpgradePlan;
      const fake = createFakeUpgradeControl();
      let stored: UpgradePlan | undefined;
      const sources = simSources(sim, ATTEMPTS);
      await startCommand({
        deps: {
          config,
          eks: sources.eks, ec2: sources.ec2, ssm: sources.ssm, kube: sources.kube, autoScaling: sources.autoScaling,
          control: { ...fake, start: async (request: StartRequest, from: string, plan?: UpgradePlan) => { stored = plan; return fake.start(request, from); } },
          audit: auditLog.audit,
          waivers: slackWaivers(name),
          usergroups: { members: async () => [] },
          clock: systemClock,
          logger: createLogger({ level: 'silent' }),
        },
        args: [name, '--to', to],
        userId: 'U0REQ',
        channelId: 'C0OPS',
        respond: async () => undefined,
      } as unknown as Parameters<typeof startCommand>[0]);
      expect(stored, `start ${name} stored no plan`).toBeDefined();
      expect(planHash(stored!)).toBe(planHash(printed));
      expect(plannedGates(stored!)).toEqual(plannedGates(printed));
      // The hash leaves the findings out; they are the same read too (permissions asked, insights refreshed, waivers).
      const codes = (plan: UpgradePlan) => plan.findings.map((f) => `${f.code} ${f.severity} ${f.resources.join(',')}${f.waived ? ' waived' : ''}`).sort();
      expect(codes(stored!)).toEqual(codes(printed));
      expect(stored!.blocking).toBe(printed.blocking);
    }
  });
});
