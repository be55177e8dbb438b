import { afterEach } from 'vitest';
import { Queue } from 'bullmq';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createCloudWatchGuardReader } from '../../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../../src/guards/create-guard-reader.js';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { startPrometheus } from '../support/prometheus-server.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { redisUrl } from '../support/redis-url.js';
import { until } from '../support/until.js';
import { guardScenario, TRAINER_AVAILABILITY } from '../support/guard-scenario.js';
import { DEPLOY_IAM_POLICY, startEngineHarness, type EngineHarness } from './engine-harness.js';

/**
 * Guards in the engine (issue 29): a self-managed group replaced node by node by the bot (cordon, drain, terminate),
 * a real Prometheus scraping the simulator's kube-state-metrics, and a guard on the trainer Deployment's
 * availability. The workload breaks on the new kubelet version; the guard breaches; the job stops replacing nodes
 * and posts the breach card; Continue is refused while the guard is breached; once the workload is healthy again
 * the guard recovers and Continue finishes the upgrade.
 */
export const NODES = 5;

/** The guards' world (guardScenario: the control plane and add-ons fast, the node phase at the scenario's pace). */
export function guardWorld(): object {
  return guardScenario(NODES);
}

/** What a test started, stopped after it (useGuardKit). */
export const kit: { h?: EngineHarness; prometheus?: LocalDaemon; alertmanager?: LocalDaemon; queue?: Queue } = {};

/** Registers the clean-up of what `kit` holds after each test of the file. */
export function useGuardKit(): void {
  afterEach(async () => {
    await kit.queue?.close();
    await kit.prometheus?.stop();
    await kit.alertmanager?.stop();
    await kit.h?.close();
    kit.queue = kit.prometheus = kit.alertmanager = kit.h = undefined;
  });
}

/**
 * The simulator enforces one IAM policy on every caller: deploy/'s, plus what the test's operator does with the aws CLI
 * (put an alarm and set its state), which the bot never calls.
 */
export const OPERATOR_TOO = {
  ...DEPLOY_IAM_POLICY,
  Statement: [...[DEPLOY_IAM_POLICY.Statement].flat(), { Sid: 'TestOperatorAlarms', Effect: 'Allow' as const, Action: ['cloudwatch:PutMetricAlarm', 'cloudwatch:SetAlarmState'], Resource: '*' }],
};
export const AVAILABILITY = TRAINER_AVAILABILITY;
export const gatesOf = (harness: EngineHarness) => harness.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate);
export const notes = (harness: EngineHarness) => harness.thread.events('note').flatMap((event) => (event.kind === 'note' ? [event.text] : []));

/**
 * The scenario on a harness, a Prometheus scraping it (and sending alerts to `alertmanagerUrl`), and an engine whose
 * clusters.yaml has the guards `guardsFor` returns; the upgrade started and its control-plane gate answered.
 */
export async function startGuardedUpgrade(guardsFor: (urls: { prometheus: string; sim: string }) => unknown[], options: { rules?: string; alertmanagerUrl?: string; before?: (harness: EngineHarness) => Promise<void> } = {}) {
  const harness = await startEngineHarness({ scenario: guardWorld(), speed: 30, iamPolicy: OPERATOR_TOO, config: parseClustersConfig({ clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false } }] }) });
  kit.h = harness;
  const prometheus = (kit.prometheus = await startPrometheus({ scrapeTargets: [new URL(harness.sim.url).host], metricsPath: '/_sim/metrics', rules: options.rules, alertmanagerUrl: options.alertmanagerUrl }));
  await options.before?.(harness);
  const config = parseClustersConfig({
    clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false }, guards: guardsFor({ prometheus: prometheus.url, sim: harness.sim.url }) }],
  });
  const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
  const guards = createGuardReader({ cloudWatch: createCloudWatchGuardReader({ endpoint: harness.sim.url, credentials }), credentialsFor: () => async () => credentials });
  const engine = harness.engine({ config, guards });
  await engine.startWorker();
  kit.queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: harness.prefix });
  await until(async () => ((await fetch(`${prometheus.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json())) as { data: { result: unknown[] } }).data.result.length > 0, 'Prometheus to scrape the simulator');
  const { job } = await harness.start(engine.control, harness.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
  await until(() => gatesOf(harness).find((gate) => gate.gateId === 'h1-control-plane'), 'the control-plane gate', 60_000);
  await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
  return { harness, engine, jobId: job.jobId };
}

