import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createCloudWatchGuardReader } from '../../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../../src/guards/create-guard-reader.js';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { startPrometheus } from '../support/prometheus-server.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { redisUrl } from '../support/redis-url.js';
import { simControl } from '../support/start-sim.js';
import { until } from '../support/until.js';
import { guardScenario, TRAINER_AVAILABILITY } from '../support/guard-scenario.js';
import { aws } from '../support/aws-cli.js';
import { startAlertmanager } from '../support/alertmanager-server.js';
import { DEPLOY_IAM_POLICY, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * Guards in the engine (issue 29): a self-managed group replaced node by node by the bot (cordon, drain, terminate),
 * a real Prometheus scraping the simulator's kube-state-metrics, and a guard on the trainer Deployment's
 * availability. The workload breaks on the new kubelet version; the guard breaches; the job stops replacing nodes
 * and posts the breach card; Continue is refused while the guard is breached; once the workload is healthy again
 * the guard recovers and Continue finishes the upgrade.
 */
const NODES = 5;

let h: EngineHarness | undefined;
let prometheus: LocalDaemon | undefined;
let alertmanager: LocalDaemon | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  await queue?.close();
  await prometheus?.stop();
  await alertmanager?.stop();
  await h?.close();
  queue = prometheus = alertmanager = h = undefined;
});

/**
 * The simulator enforces one IAM policy on every caller: deploy/'s, plus what the test's operator does with the aws CLI
 * (put an alarm and set its state), which the bot never calls.
 */
const OPERATOR_TOO = {
  ...DEPLOY_IAM_POLICY,
  Statement: [...[DEPLOY_IAM_POLICY.Statement].flat(), { Sid: 'TestOperatorAlarms', Effect: 'Allow' as const, Action: ['cloudwatch:PutMetricAlarm', 'cloudwatch:SetAlarmState'], Resource: '*' }],
};
const AVAILABILITY = TRAINER_AVAILABILITY;
const gatesOf = (harness: EngineHarness) => harness.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate);
const notes = (harness: EngineHarness) => harness.thread.events('note').flatMap((event) => (event.kind === 'note' ? [event.text] : []));

/**
 * The scenario on a harness, a Prometheus scraping it (and sending alerts to `alertmanagerUrl`), and an engine whose
 * clusters.yaml has the guards `guardsFor` returns; the upgrade started and its control-plane gate answered.
 */
async function startGuardedUpgrade(guardsFor: (urls: { prometheus: string; sim: string }) => unknown[], options: { rules?: string; alertmanagerUrl?: string; before?: (harness: EngineHarness) => Promise<void> } = {}) {
  const harness = await startEngineHarness({ scenario: guardScenario(NODES), speed: 30, iamPolicy: OPERATOR_TOO, config: parseClustersConfig({ clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false } }] }) });
  h = harness;
  prometheus = await startPrometheus({ scrapeTargets: [new URL(harness.sim.url).host], metricsPath: '/_sim/metrics', rules: options.rules, alertmanagerUrl: options.alertmanagerUrl });
  await options.before?.(harness);
  const config = parseClustersConfig({
    clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false }, guards: guardsFor({ prometheus: prometheus.url, sim: harness.sim.url }) }],
  });
  const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
  const guards = createGuardReader({ cloudWatch: createCloudWatchGuardReader({ endpoint: harness.sim.url, credentials }), credentialsFor: () => async () => credentials });
  const engine = harness.engine({ config, guards });
  await engine.startWorker();
  queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: harness.prefix });
  await until(async () => ((await fetch(`${prometheus!.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json())) as { data: { result: unknown[] } }).data.result.length > 0, 'Prometheus to scrape the simulator');
  const { job } = await harness.start(engine.control, harness.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
  await until(() => gatesOf(harness).find((gate) => gate.gateId === 'h1-control-plane'), 'the control-plane gate', 60_000);
  await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
  return { harness, engine, jobId: job.jobId };
}

describe('upgrade engine: a guard stops the bot replacing nodes', () => {
  it('breaches when the workload fails on the new version, stops disrupting, posts the breach card, and resumes after recovery', async () => {
    // Started first so the guard's url is known; the simulator's metrics are scraped once it runs.
    const sim = await startEngineHarness({
      scenario: guardScenario(NODES), speed: 30,
      config: parseClustersConfig({ clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false } }] }),
    });
    h = sim;
    prometheus = await startPrometheus({ scrapeTargets: [new URL(sim.sim.url).host], metricsPath: '/_sim/metrics' });
    const config = parseClustersConfig({
      clusters: [{
        name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false },
        guards: [{
          name: 'trainer available',
          prometheus: { url: prometheus.url, query: TRAINER_AVAILABILITY, breachWhen: '< 1', for: '2s' },
          interval: '1s',
        }],
      }],
    });
    const guards = createGuardReader({ cloudWatch: createCloudWatchGuardReader(), credentialsFor: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }) });
    const engine = sim.engine({ config, guards });
    await engine.startWorker();
    queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: sim.prefix });
    const dataOf = async (jobId: string) => (await queue!.getJob(jobId))!.data as UpgradeJobData;

    // The trainer fails readiness on 1.31 kubelets, as a real incompatibility would.
    await simControl(sim.sim, 'POST', 'workloads/fail', { namespace: 'batch', name: 'trainer', onVersion: '1.31' });
    await until(async () => (await fetch(`${prometheus!.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json() as Promise<any>)).data.result.length > 0, 'Prometheus to scrape the simulator');

    const { job } = await sim.start(engine.control, sim.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
    await waitForJobState(engine, job.jobId, ['waiting-approval'], 60_000);
    const controlPlaneGate = sim.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate).find((gate) => gate.gateId === 'h1-control-plane')!;
    // Every gate shows the guards.
    expect(controlPlaneGate.details.join('\n')).toContain('*trainer available*: healthy, 1 (breached when &lt; 1)');
    expect(controlPlaneGate.actions).toEqual(['continue', 'force', 'abort']);
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });

    const breach = await until(() => sim.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate).find((gate) => gate.gateId === 'guard-1'), () => `the breach card (job at "${sim.thread.events('step-started').at(-1)?.kind}")`, 150_000);
    const terminatedAtBreach = sim.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(terminatedAtBreach).toBeLessThan(NODES);
    expect(breach.title).toBe('Guard "trainer available" stopped the upgrade of batch');
    const card = breach.details.join('\n');
    expect(card).toMatch(/🔴 \*trainer available\*: breached since \d\d:\d\d:\d\d UTC, 0\.\d+ \(breached when &lt; 1\)/);
    expect(card).toContain('watches min(kube_deployment_status_replicas_available');
    expect(card).toMatch(/last 30 minutes: `[▁▂▃▄▅▆▇█ ]+`/);
    expect(card).toContain('The bot stopped at step "');
    expect(card).toContain('<@U0APP>');
    expect(breach.actions).toEqual(['continue', 'force', 'abort']);

    // Stopped: parked at the breach card, and after further evaluations of the guard no node was terminated.
    await sim.parked(job.jobId, 60_000);
    const parkedAt = (await dataOf(job.jobId)).guards!.tracks['trainer available'].at;
    await until(async () => (await dataOf(job.jobId)).guards!.tracks['trainer available'].at > parkedAt, 'the guard to be evaluated again while the job waits', 60_000);
    expect(sim.calls('TerminateInstanceInAutoScalingGroup').length).toBe(terminatedAtBreach);
    expect((await engine.control.getJob(job.jobId))!.state).toBe('paused');

    // Continue while still breached is refused, and the card is asked again.
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'guard-1', revision: breach.revision, action: 'continue', userId: 'U0APP' });
    await until(() => sim.thread.events('note').some((event) => event.kind === 'note' && event.text.startsWith('Continue by <@U0APP> refused: guard "trainer available" still halts')), 'the refusal');
    const again = await until(() => sim.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate).find((gate) => gate.gateId === 'guard-1' && gate.revision === breach.revision + 1), 'the breach card asked again');

    // The workload is fixed: the guard recovers, the thread says so, and Continue finishes the upgrade.
    await simControl(sim.sim, 'DELETE', 'workloads/fail', { namespace: 'batch', name: 'trainer' });
    await until(() => sim.thread.events('note').some((event) => event.kind === 'note' && event.text.startsWith('Guard "trainer available" recovered')), 'the recovery note', 60_000);
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'guard-1', revision: again.revision, action: 'continue', userId: 'U0APP' });
    const done = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 150_000);
    expect(done.state, JSON.stringify(sim.thread.events('step-failed'))).toBe('succeeded');
    expect(sim.calls('TerminateInstanceInAutoScalingGroup').length).toBe(NODES);
  }, 400_000);

  it('halts with "cannot read guard …" when the guard\'s server stops mid-upgrade, and breaches on a CloudWatch alarm set by the aws CLI after a Force', async () => {
    // The alarm exists and is OK before the upgrade starts (a missing or INSUFFICIENT_DATA alarm would halt it: missing data).
    const cli = (harness: EngineHarness, ...args: string[]) => aws(harness.sim, 'cloudwatch', ...args);
    const { harness, engine, jobId } = await startGuardedUpgrade(({ prometheus: url }) => [
      { name: 'trainer available', prometheus: { url, query: AVAILABILITY, breachWhen: '< 0.5', for: '1s' }, interval: '1s' },
      { name: 'checkout 5xx', cloudwatch: { alarmNames: ['checkout-5xx'] }, interval: '1s' },
    ], {
      before: async (harness) => {
        const put = await cli(harness, 'put-metric-alarm', '--alarm-name', 'checkout-5xx', '--namespace', 'AWS/ApplicationELB', '--metric-name', 'HTTPCode_Target_5XX_Count', '--statistic', 'Sum', '--period', '60', '--evaluation-periods', '1', '--threshold', '10', '--comparison-operator', 'GreaterThanThreshold');
        expect(put.stderr).toBe('');
        expect((await cli(harness, 'set-alarm-state', '--alarm-name', 'checkout-5xx', '--state-value', 'OK', '--state-reason', 'quiet')).ok).toBe(true);
      },
    });
    await until(() => harness.calls('TerminateInstanceInAutoScalingGroup').length >= 1, () => `the first node to be replaced (cards so far: ${JSON.stringify(gatesOf(harness).map((gate) => [gate.gateId, gate.details[0]]))})`, 150_000);
    const prometheusUrl = prometheus!.url;
    await prometheus!.stop();
    prometheus = undefined;
    const unreadable = await until(() => gatesOf(harness).find((gate) => gate.gateId === 'guard-1'), 'the card of the unreadable guard', 60_000);
    expect(unreadable.details[0]).toBe(`⚪ *trainer available*: unknown since ${unreadable.details[0].match(/\d\d:\d\d:\d\d/)![0]} UTC: cannot read guard trainer available: Prometheus at ${prometheusUrl} cannot be reached (ECONNREFUSED)`);
    const terminatedAtHold = harness.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(terminatedAtHold).toBeLessThan(NODES);

    // Force past it (the Prometheus is down for maintenance): the job carries on, said in the thread.
    await engine.control.answerGate({ jobId, gateId: 'guard-1', revision: unreadable.revision, action: 'force', userId: 'U0APP', reason: 'prometheus is being redeployed; watching dashboards by hand' });
    await until(() => notes(harness).some((text) => text.startsWith('Forced on by <@U0APP> past guard "trainer available": prometheus is being redeployed')), 'the Force in the thread');
    await until(() => harness.calls('TerminateInstanceInAutoScalingGroup').length > terminatedAtHold, 'the bot to replace nodes again', 60_000);

    // The alarm fires: the CloudWatch guard stops the bot again, with a card of its own.
    expect((await cli(harness, 'set-alarm-state', '--alarm-name', 'checkout-5xx', '--state-value', 'ALARM', '--state-reason', 'Threshold Crossed: 1 datapoint [42.0] was greater than the threshold (10.0).')).ok).toBe(true);
    const alarmCard = await until(() => gatesOf(harness).find((gate) => gate.gateId === 'guard-2'), 'the CloudWatch breach card', 60_000);
    const terminatedAtAlarm = harness.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(alarmCard.title).toBe('Guard "checkout 5xx" stopped the upgrade of batch');
    expect(alarmCard.details.join('\n')).toMatch(/🔴 \*checkout 5xx\*: breached since \d\d:\d\d:\d\d UTC, 1 alarm in ALARM: checkout-5xx/);
    expect(alarmCard.details.join('\n')).toContain('watches alarms checkout-5xx');
    await harness.parked(jobId, 60_000);
    await engine.control.answerGate({ jobId, gateId: 'guard-2', revision: alarmCard.revision, action: 'abort', userId: 'U0APP' });
    const done = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted'], 60_000);
    expect(done.state).toBe('aborted');
    expect(harness.calls('TerminateInstanceInAutoScalingGroup').length).toBe(terminatedAtAlarm);
  }, 400_000);

  it('stops on an Alertmanager alert fired by a Prometheus rule, and resumes by itself once it resolves (autoResume)', async () => {
    alertmanager = await startAlertmanager();
    const rules = `groups:\n  - name: trainer\n    rules:\n      - alert: TrainerUnavailable\n        expr: '${AVAILABILITY} < 1'\n        labels: { severity: critical, namespace: batch }\n`;
    const { harness, engine, jobId } = await startGuardedUpgrade(() => [
      { name: 'critical alerts', alertmanager: { url: alertmanager!.url, matchers: ['severity="critical"', 'namespace=~"batch|shop"'] }, interval: '1s', autoResume: true },
    ], { rules, alertmanagerUrl: alertmanager.url });
    await simControl(harness.sim, 'POST', 'workloads/fail', { namespace: 'batch', name: 'trainer', onVersion: '1.31' });
    const card = await until(() => gatesOf(harness).find((gate) => gate.gateId === 'guard-1'), 'the breach card', 150_000);
    expect(card.details[0]).toMatch(/🔴 \*critical alerts\*: breached since \d\d:\d\d:\d\d UTC, 1 alert firing: TrainerUnavailable/);
    expect(card.details[1]).toBe('   watches alerts matching severity="critical", namespace=~"batch|shop"');
    const terminatedAtBreach = harness.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(terminatedAtBreach).toBeLessThan(NODES);

    await simControl(harness.sim, 'DELETE', 'workloads/fail', { namespace: 'batch', name: 'trainer' });
    await until(() => notes(harness).some((text) => text.startsWith('Guard "critical alerts" recovered') && text.includes('resumes by itself')), 'the recovery note', 90_000);
    const done = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted'], 150_000);
    expect(done.state, JSON.stringify(harness.thread.events('step-failed'))).toBe('succeeded');
    const resumed = harness.thread.events('gate-answered').find((event) => event.kind === 'gate-answered' && event.gate.gateId === 'guard-1');
    expect(resumed).toMatchObject({ action: 'continue', by: 'autoResume of guard "critical alerts"' });
    expect(harness.calls('TerminateInstanceInAutoScalingGroup').length).toBe(NODES);
  }, 400_000);
});
