import '../src/log/quiet-node-version-warning.js';
import { Queue } from 'bullmq';
import { parseClustersConfig } from '../src/config/clusters-config.js';
import { createCloudWatchGuardReader } from '../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../src/guards/create-guard-reader.js';
import type { GuardReader } from '../src/ports/guards/guard-port.js';
import type { GateModel } from '../src/ports/timeline-event.js';
import type { UpgradeJobData } from '../src/planning/upgrade-job-data.js';
import { UPGRADE_QUEUE } from '../src/store/engine-keys.js';
import { startEngineHarness } from '../test/integration/engine-harness.js';
import { startPrometheus } from '../test/support/prometheus-server.js';
import { redisUrl } from '../test/support/redis-url.js';
import { until } from '../test/support/until.js';
import { guardScenario, TRAINER_AVAILABILITY } from '../test/support/guard-scenario.js';
import { printRow } from './kit/figures.js';

/**
 * Issue 29's figures (`npm run bench`, BENCH=GUARDS): the engine replaces a 5-node self-managed group node by node
 * while a real Prometheus scrapes the simulator, and a guard (interval 1 s, for 2 s) watches the trainer's
 * availability; the trainer fails on 1.31. Printed, not asserted:
 * - breach to stop: from the first scrape Prometheus recorded below the threshold to the hold (the bot's clock, wall
 *   time here, as Prometheus's is); the goal is at most interval + for + 5 s;
 * - terminations the bot issued after the stop, over the guard's next evaluations (goal 0);
 * - guard reads per guard per interval while the job ran (goal 1), and reads while no job runs (goal 0).
 */
const NODES = 5;
const INTERVAL_MS = 1_000;
const FOR_MS = 2_000;
const QUERY = TRAINER_AVAILABILITY;

async function main(): Promise<void> {
  const clusters = (guards: unknown[]) => parseClustersConfig({ clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false }, guards }] });
  const h = await startEngineHarness({ scenario: guardScenario(NODES), speed: 30, config: clusters([]) });
  const prometheus = await startPrometheus({ scrapeTargets: [new URL(h.sim.url).host], metricsPath: '/_sim/metrics' });
  const queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: h.prefix });
  try {
    const inner = createGuardReader({ cloudWatch: createCloudWatchGuardReader(), credentialsFor: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }) });
    let reads = 0;
    const guards: GuardReader = { read: (...args) => ((reads += 1), inner.read(...args)), history: (...args) => inner.history(...args) };
    const engine = h.engine({ config: clusters([{ name: 'trainer available', prometheus: { url: prometheus.url, query: QUERY, breachWhen: '< 1', for: `${FOR_MS / 1000}s` }, interval: `${INTERVAL_MS / 1000}s` }]), guards });
    await engine.startWorker();
    await until(async () => ((await fetch(`${prometheus.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json())) as { data: { result: unknown[] } }).data.result.length > 0, 'Prometheus to scrape the simulator', 60_000);
    await fetch(`${h.sim.url}/_sim/workloads/fail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ namespace: 'batch', name: 'trainer', onVersion: '1.31' }) });
    const { job } = await h.start(engine.control, h.request({ cluster: 'batch', channel: 'C0OPS', to: '1.31' }), '1.30');
    const gates = () => h.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate);
    await until(() => gates().some((gate) => gate.gateId === 'h1-control-plane'), 'the control-plane gate', 60_000);
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
    const runningFrom = Date.now();
    const readsFrom = reads;
    await until(() => gates().some((gate) => gate.gateId === 'guard-1'), 'the breach card', 300_000);
    const data = (await queue.getJob(job.jobId))!.data as UpgradeJobData;
    const stoppedAt = data.guards!.hold!.since;
    const terminatedAtStop = h.calls('TerminateInstanceInAutoScalingGroup').length;
    const runMs = Date.now() - runningFrom;
    const readsWhileRunning = reads - readsFrom;
    // When Prometheus first saw the condition: its samples of the last minutes, at the scrape interval.
    const end = Date.now() / 1000;
    const range = (await fetch(`${prometheus.url}/api/v1/query_range?query=${encodeURIComponent(QUERY)}&start=${end - 600}&end=${end}&step=1s`).then((r) => r.json())) as { data: { result: Array<{ values: Array<[number, string]> }> } };
    const firstBelow = range.data.result[0]?.values.find(([, value]) => Number(value) < 1)?.[0];
    // The guard's next evaluations while the job waits at the card: no termination meanwhile.
    const seen = data.guards!.tracks['trainer available'].at;
    await until(async () => ((await queue.getJob(job.jobId))!.data as UpgradeJobData).guards!.tracks['trainer available'].at > seen + 2 * INTERVAL_MS, 'two more evaluations', 60_000);
    const terminatedAfter = h.calls('TerminateInstanceInAutoScalingGroup').length - terminatedAtStop;
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'guard-1', revision: 1, action: 'abort', userId: 'U0APP' });
    await until(async () => (await engine.control.getJob(job.jobId))?.state === 'aborted', 'the job to end', 60_000);
    const readsAfterEnd = reads;
    const quietFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 5 * INTERVAL_MS));
    printRow('guards: breach to stop', {
      ms: firstBelow === undefined ? 'n/a' : stoppedAt - firstBelow * 1000,
      goal_ms: INTERVAL_MS + FOR_MS + 5_000,
    });
    printRow('guards: bot terminations after stop', { count: terminatedAfter, replaced_before: terminatedAtStop, nodes: NODES });
    printRow('guards: reads per guard per interval', { running: readsWhileRunning / (runMs / INTERVAL_MS), idle_reads: reads - readsAfterEnd, idle_s: (Date.now() - quietFrom) / 1000 });
  } finally {
    await queue.close();
    await prometheus.stop();
    await h.close();
  }
}

void main().then(() => process.exit(0), (error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
