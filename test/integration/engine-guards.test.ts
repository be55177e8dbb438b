import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
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
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * Guards in the engine (issue 29): a self-managed group replaced node by node by the bot (cordon, drain, terminate),
 * a real Prometheus scraping the simulator's kube-state-metrics, and a guard on the trainer Deployment's
 * availability. The workload breaks on the new kubelet version; the guard breaches; the job stops replacing nodes
 * and posts the breach card; Continue is refused while the guard is breached; once the workload is healthy again
 * the guard recovers and Continue finishes the upgrade.
 */
const NODES = 5;

/** self-managed-refresh with more nodes and trainer pods and no PDB: only the guard can stop the bot here. */
function scenario(): object {
  const world = parseYaml(readFileSync(new URL('../../src/sim/scenarios/self-managed-refresh.yaml', import.meta.url), 'utf8'));
  const cluster = world.clusters[0];
  Object.assign(cluster.selfManaged[0], { count: NODES, min: NODES, max: NODES + 1 });
  cluster.kubernetes = cluster.kubernetes.filter((object: { kind: string }) => object.kind !== 'PodDisruptionBudget');
  const trainer = cluster.kubernetes.find((object: { kind: string; metadata: { name: string } }) => object.kind === 'Deployment' && object.metadata.name === 'trainer');
  trainer.spec.replicas = NODES;
  return world;
}

let h: EngineHarness | undefined;
let prometheus: LocalDaemon | undefined;
let queue: Queue | undefined;
afterEach(async () => {
  await queue?.close();
  await prometheus?.stop();
  await h?.close();
  queue = prometheus = h = undefined;
});

describe('upgrade engine: a guard stops the bot replacing nodes', () => {
  it('breaches when the workload fails on the new version, stops disrupting, posts the breach card, and resumes after recovery', async () => {
    // Started first so the guard's url is known; the simulator's metrics are scraped once it runs.
    const sim = await startEngineHarness({
      scenario: scenario(), speed: 30,
      config: parseClustersConfig({ clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false } }] }),
    });
    h = sim;
    prometheus = await startPrometheus({ scrapeTargets: [new URL(sim.sim.url).host], metricsPath: '/_sim/metrics' });
    const config = parseClustersConfig({
      clusters: [{
        name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false },
        guards: [{
          name: 'trainer available',
          prometheus: { url: prometheus.url, query: 'min(kube_deployment_status_replicas_available{deployment="trainer"} / kube_deployment_spec_replicas{deployment="trainer"})', breachWhen: '< 1', for: '2s' },
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
});
