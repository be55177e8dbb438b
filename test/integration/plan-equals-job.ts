import { Queue } from 'bullmq';
import { afterEach, expect } from 'vitest';
import { parseClustersConfig, findCluster, type ClustersConfig } from '../../src/config/clusters-config.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { PlannedAction, UpgradePlan } from '../../src/ports/upgrade-plan.js';
import type { GateAction, GateModel } from '../../src/ports/timeline-event.js';
import { readPlan } from '../../src/cluster-reader/read-and-plan.js';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import { redisUrl } from '../support/redis-url.js';
import { answerGatesUntilEnded, startEngineHarness, type EngineHarness } from './engine-harness.js';

/**
 * The plan an approver reads is the job that runs. For each shipped scenario: build the plan the way `plan` and
 * `start` do (a snapshot of the simulated cluster + its clusters.yaml policy), start the job with it, answer its
 * gates as an on-call would, then hold the job to the plan — the same steps hop by hop, every planned action done
 * on the resource it names, nothing acted on that the plan does not name — and hold the simulator's log of
 * mutating AWS calls to it: every UpdateClusterVersion / UpdateAddon / UpdateNodegroupVersion / CreateNodegroup /
 * DeleteNodegroup is one the plan named, as many times as it named it.
 *
 * One mutating call is not an upgrade action: StartInsightsRefresh. It asks EKS to rescan the upgrade insights and
 * changes nothing in the cluster; `plan` and each hop's preflight make it when the insights are older than
 * `checks.insightsMaxAgeHours` (src/cluster-reader/refresh-insights.ts). So the rule for it is its own: at most one per
 * read — the plan's and one per hop's preflight — and never instead of a named action.
 *
 * Every Auto Scaling call is on a group the plan rolls (EC2 launch template calls carry no cluster in the
 * simulator's log and are not held here).
 */
// On the simulator's clock the job's own timeouts pass at this speed too: a remedy's 10 minutes for a deployment to
// scale are 1 s of wall time at 600×, half a second at 1,200×, which a machine at load 16 overran (at 600× the
// lost-answers workshop runs, remedy included, passed at that load).
const SPEED = 600;
const approvers = { requesters: ['U0REQ'], approvers: ['U0APP'] };
export const demo = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], ...approvers }] });
export const workshop = parseClustersConfig({
  clusters: [{
    name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], ...approvers, karpenter: { upgradeBudget: '1' },
    nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, '*': { strategy: 'in-place' } },
  }],
});
export const lab = parseClustersConfig({ clusters: [{ name: 'eksworkshop-eksctl', region: 'us-west-2', channels: ['C0OPS'], ...approvers, karpenter: { upgradeBudget: '1' } }] });

let h: EngineHarness | undefined;
/** Registers the cleanup of the harness planAndRun starts (one per test). */
export function usePlanHarness(): void {
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
}

/** The on-call's answers: Force past preflight findings and the custom-AMI group, take remedies, Continue otherwise. */
function onCall(gate: GateModel): { action: GateAction; reason?: string } {
  if (gate.gateId.endsWith('-preflight')) return { action: 'force', reason: 'known findings, accepted for the test' };
  if (gate.gateId.endsWith('-custom-ami')) return { action: 'force', reason: 'the custom AMI is rebuilt next sprint' };
  if (gate.actions.includes('remedy')) return { action: 'remedy' };
  return { action: 'continue' };
}

export async function planAndRun(opts: {
  scenario: string;
  cluster: string;
  channel: string;
  from: string;
  to: string;
  config: ClustersConfig;
  /** How long ago EKS last scanned the cluster's insights when the plan reads it (default: just now). */
  insightsAgeHours?: number;
  /** What people change between `plan` and `start` (the plan is already built). */
  meanwhile?: (h: EngineHarness, plan: UpgradePlan) => Promise<void>;
}) {
  // On the simulator's clock: the job's backoffs after throttles (demo-throttled) pass at the simulator's speed.
  // The plan read retries as the CLI's reads do under demo-throttled (ATTEMPTS in plan-announces-gates.test.ts).
  h = await startEngineHarness({ scenario: opts.scenario, speed: SPEED, config: opts.config, clock: 'sim', readAttempts: 10 });
  const clusterConfig = findCluster(opts.config, opts.cluster)!;
  const clock = h.sim.world.clock;
  if (opts.insightsAgeHours) h.sim.world.clusters.get(opts.cluster)!.insightsRefreshedAt = clock.now() - opts.insightsAgeHours * 3600_000;
  // Read as `plan` reads (with its insights refresh), on the simulator's clock, which the insights' age is told on.
  // The one read-and-plan `plan` and `start` use (src/cluster-reader/read-and-plan.ts).
  const { plan } = await readPlan({ ...h.sources, clock }, { name: opts.cluster, region: 'us-west-2', config: clusterConfig, from: opts.from, to: opts.to, timeoutMs: 120_000 * SPEED });
  await opts.meanwhile?.(h, plan);
  const engine = h.engine();
  await engine.startWorker();
  const { job } = await engine.control.start(h.request({ cluster: opts.cluster, channel: opts.channel, to: opts.to }), opts.from, plan);
  await answerGatesUntilEnded(engine, h.thread, job.jobId, onCall, 150_000);
  const queue = new Queue<UpgradeJobData>(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
  const data = (await queue.getJob(job.jobId))!.data;
  await queue.close();
  const failure = h.thread.events('step-failed')[0];
  // Every gate card the job posted, in order (a gate reopened at a new revision counts once).
  const asked = [...new Map(h.thread.events('gate-opened').map((e) => (e.kind === 'gate-opened' ? [e.gate.gateId, e.gate] as const : ['', undefined] as const))).values()].filter((g): g is GateModel => !!g);
  return { plan, data, failure, asked, calls: h.sim.world.calls.filter((call) => call.cluster === opts.cluster), notes: h.thread.events('note').map((e) => (e.kind === 'note' ? e.text : '')) };
}

const key = (a: { resource: string; action: string; to?: string }) => `${a.resource} ${a.action}${a.to ? ` ${a.to}` : ''}`;
// Reports for the operator: the job names them and changes nothing.
const REPORTS = new Set(['report-manual', 'karpenter-manual']);
// A gate asks a person whether to skip the group; Force skips it, which the test's on-call does.
const outcomeOf = (action: PlannedAction) => (action.action === 'custom-ami-gate' ? 'skipped' : 'done');

/** The AWS calls each planned action may make, as operation:target. */
export function callsOf(action: PlannedAction): string[] {
  const name = action.resource.split('/').slice(1).join('/');
  switch (action.action) {
    case 'update-control-plane':
      return [`UpdateClusterVersion:${action.to}`];
    case 'update-addon':
      return [`UpdateAddon:${name}`];
    case 'update-in-place':
    case 'roll-launch-template':
      return [`UpdateNodegroupVersion:${name}`];
    case 'blue-green':
      return [`DeleteNodegroup:${name}`];
    default:
      return [];
  }
}

/** The plan's always-asked gates, in order (issue 23). */
export function plannedGates(plan: UpgradePlan): string[] {
  return plan.hops.flatMap((hop) => hop.steps.flatMap((step) => (step.gate ? [step.gate] : [])));
}

/**
 * The gates the job asked, less those the plan lists as asked only when something blocks — by their gate ids, which
 * name the block (a drain, a custom AMI, a failed add-on, a forced preflight).
 */
export function askedAlways(asked: GateModel[]): string[] {
  return asked.filter((gate) => !/-(preflight|custom-ami|drain(-.*)?|ami)$|-addon-|^h\d+-ng-/.test(gate.gateId)).map((gate) => gate.title);
}

export function expectJobToBeThePlan(run: Awaited<ReturnType<typeof planAndRun>>): void {
  const { plan, data, calls } = run;
  expect(run.failure, JSON.stringify(run.failure)).toBeUndefined();
  expect(data.state).toBe('succeeded');
  // 0. The gates the plan announces are the gates the job asked: same questions, same order.
  expect(askedAlways(run.asked)).toEqual(plannedGates(plan));
  // 1. The same steps, hop by hop.
  const planned = plan.hops.flatMap((hop, index) => [...new Set(hop.steps.map((step) => step.kind))].map((kind) => `h${index + 1} ${kind}`));
  expect(data.steps.map((step) => `h${step.hop} ${step.kind}`)).toEqual(planned);
  // 2. Per step, every planned action done on its resource, and nothing else acted on.
  for (const [index, hop] of plan.hops.entries()) {
    for (const step of data.steps.filter((s) => s.hop === index + 1)) {
      const wanted = hop.steps.filter((line) => line.kind === step.kind).flatMap((line) => line.actions).filter((a) => !REPORTS.has(a.action));
      const acted = Object.values(data.acted[step.id] ?? {}).map((a) => `${key(a)}: ${a.outcome}`).sort();
      expect(acted, `${step.id}`).toEqual(wanted.map((a) => `${key(a)}: ${outcomeOf(a)}`).sort());
    }
  }
  // 3. Every mutating AWS call is one the plan named, as often as it named it; insights refreshes apart (above).
  const actions = plan.hops.flatMap((hop) => hop.steps.flatMap((line) => line.actions));
  const allowed = actions.flatMap(callsOf).sort();
  const greens = actions.filter((a) => a.action === 'blue-green').length;
  expect(insightsRefreshes(run).length).toBeLessThanOrEqual(1 + plan.hops.length);
  const made = calls
    .filter((call) => call.operation !== 'StartInsightsRefresh' && call.service !== 'autoscaling')
    .map((call) => `${call.operation}:${call.target}`)
    .filter((call) => !call.startsWith('CreateNodegroup:'))
    .sort();
  expect(made).toEqual(allowed);
  expect(calls.filter((call) => call.operation === 'CreateNodegroup')).toHaveLength(greens);
  // Auto Scaling calls (point the group at the new version, terminate one instance at a time, instance refresh and
  // its lifecycle hook) vary in number with the nodes: each must be on a group the plan names with roll-self-managed.
  const rolled = new Set(actions.filter((a) => a.action === 'roll-self-managed').map((a) => a.resource.split('/').slice(1).join('/')));
  const autoScaling = calls.filter((call) => call.service === 'autoscaling').map((call) => `${call.operation}:${call.target}`);
  expect(autoScaling.filter((call) => !rolled.has(call.split(':')[1]?.split(' ')[0] ?? ''))).toEqual([]);
  for (const group of rolled) expect(autoScaling.some((call) => call.split(':')[1]?.startsWith(`${group} `)), `Auto Scaling calls on ${group}`).toBe(true);
}

/** The StartInsightsRefresh calls of a run: the plan's read and the hops' preflights. */
export const insightsRefreshes = (run: Pick<Awaited<ReturnType<typeof planAndRun>>, 'calls'>) =>
  run.calls.filter((call) => call.operation === 'StartInsightsRefresh');

/** What the plan says about each resource in words, to check the scenario covers what the test claims. */
export const actionsOf = (plan: UpgradePlan) => plan.hops.flatMap((hop) => hop.steps.flatMap((line) => line.actions.map(key)));

