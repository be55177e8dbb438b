import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createCloudWatchGuardReader } from '../../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../../src/guards/create-guard-reader.js';
import { UPGRADE_QUEUE } from '../../src/store/engine-keys.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { startPrometheus } from '../support/prometheus-server.js';
import { redisUrl } from '../support/redis-url.js';
import { simControl } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';
import { TRAINER_AVAILABILITY } from '../support/guard-scenario.js';
import { startEngineHarness, waitForJobState } from './engine-harness.js';
import { kit, useGuardKit, guardWorld, NODES } from './engine-guards-kit.js';

/**
 * Guards in the engine (issue 29), one case per file so the suite's two workers run them side by side (each waits
 * on a real Prometheus's scrapes): a Prometheus guard on the trainer's availability breaches when the workload
 * fails on the new version. The set-up is engine-guards-kit.ts.
 */
useGuardKit();

describe('upgrade engine: a guard stops the bot replacing nodes', () => {
  it('breaches when the workload fails on the new version, stops disrupting, posts the breach card, and resumes after recovery', async () => {
    // Started first so the guard's url is known; the simulator's metrics are scraped once it runs.
    const sim = await startEngineHarness({
      scenario: guardWorld(), speed: 30,
      config: parseClustersConfig({ clusters: [{ name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false } }] }),
    });
    kit.h = sim;
    kit.prometheus = await startPrometheus({ scrapeTargets: [new URL(sim.sim.url).host], metricsPath: '/_sim/metrics' });
    const config = parseClustersConfig({
      clusters: [{
        name: 'batch', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false },
        guards: [{
          name: 'trainer available',
          prometheus: { url: kit.prometheus.url, query: TRAINER_AVAILABILITY, breachWhen: '< 1', for: '2s' },
          interval: '1s',
        }],
      }],
    });
    const guards = createGuardReader({ cloudWatch: createCloudWatchGuardReader(), credentialsFor: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }) });
    const engine = sim.engine({ config, guards });
    await engine.startWorker();
    kit.queue = new Queue(UPGRADE_QUEUE, { connection: { url: redisUrl }, prefix: sim.prefix });
    const dataOf = async (jobId: string) => (await kit.queue!.getJob(jobId))!.data as UpgradeJobData;

    // The trainer fails readiness on 1.31 kubelets, as a real incompatibility would.
    await simControl(sim.sim, 'POST', 'workloads/fail', { namespace: 'batch', name: 'trainer', onVersion: '1.31' });
    await until(async () => (await fetch(`${kit.prometheus!.url}/api/v1/query?query=kube_deployment_spec_replicas`).then((r) => r.json() as Promise<any>)).data.result.length > 0, 'Prometheus to scrape the simulator');

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
    // The status card shows it paused; its Resume says where the job really waits instead of "not paused".
    const resume = await engine.control.resume(job.jobId, 'U0APP');
    expect(resume).toMatchObject({ ok: false, message: 'batch\'s upgrade is held by guard "trainer available", not by Pause: answer its breach card in the thread (Resume once the guard has recovered, Force with a reason, Roll back or Abort).' });

    // Continue while still breached is refused, and the card is asked again.
    await engine.control.answerGate({ jobId: job.jobId, gateId: 'guard-1', revision: breach.revision, action: 'continue', userId: 'U0APP' });
    await until(() => sim.thread.events('note').some((event) => event.kind === 'note' && event.text.startsWith('Resume by <@U0APP> refused: guard "trainer available" still halts')), 'the refusal');
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
