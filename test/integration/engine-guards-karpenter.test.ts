import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createCloudWatchGuardReader } from '../../src/aws/cloudwatch-guard-reader.js';
import { createGuardReader } from '../../src/guards/create-guard-reader.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { startAlertmanager } from '../support/alertmanager-server.js';
import type { LocalDaemon } from '../support/local-daemon.js';
import { until } from '../support/until.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * A guard's hold on the Karpenter step (issue 29): an alert fires while the job drives drift; the NodePool's budget
 * goes to nodes "0" (the Pause path), no further node is disrupted, and Abort puts the NodePool's own budget back.
 */
const CLUSTER = 'eksworkshop-eksctl';
let h: EngineHarness | undefined;
let alertmanager: LocalDaemon | undefined;
afterEach(async () => {
  await alertmanager?.stop();
  await h?.close();
  h = alertmanager = undefined;
});

describe('upgrade engine: a guard holds Karpenter drift', () => {
  it('sets the NodePool budget to nodes "0" on an alert, disrupts no further node, and restores the budget on Abort', async () => {
    alertmanager = await startAlertmanager();
    const clusters = [{
      name: CLUSTER, region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], karpenter: { upgradeBudget: '1' },
      guards: [{ name: 'critical alerts', alertmanager: { url: alertmanager.url, matchers: ['severity="critical"'] }, interval: '1s' }],
    }];
    const config = parseClustersConfig({ clusters });
    h = await startEngineHarness({ scenario: 'karpenter-lab', speed: 60, config, stepKinds: ['preflight', 'gate', 'control-plane', 'karpenter', 'verify'] });
    const harness = h;
    const cluster = harness.sim.world.cluster(CLUSTER)!;
    const originalBudgets = cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets;
    const disrupted = new Set<string>();
    const unsubscribe = cluster.store.subscribe(() => {
      for (const node of cluster.store.list('nodes')) {
        if ((node.spec?.taints ?? []).some((t: { key: string }) => t.key === 'karpenter.sh/disrupted' || t.key === 'karpenter.sh/disruption')) disrupted.add(node.metadata.name);
      }
    });
    const guards = createGuardReader({ cloudWatch: createCloudWatchGuardReader(), credentialsFor: () => async () => ({ accessKeyId: 'x', secretAccessKey: 'y' }) });
    const engine = harness.engine({ guards });
    await engine.startWorker();
    const { job } = await harness.start(engine.control, harness.request({ cluster: CLUSTER, channel: 'C0OPS' }), '1.30');
    const gates = () => harness.thread.events('gate-opened').map((event) => (event as { gate: GateModel }).gate);
    const answered = new Set<string>();
    // Continue every gate until the Karpenter step drives drift (its budget held at the upgrade budget, "1").
    await until(async () => {
      for (const gate of gates()) {
        if (answered.has(`${gate.gateId}:${gate.revision}`)) continue;
        answered.add(`${gate.gateId}:${gate.revision}`);
        await engine.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: gate.revision, action: 'continue', userId: 'U0APP' });
      }
      return disrupted.size > 0;
    }, 'the first Karpenter node to be disrupted', 120_000);

    const now = new Date();
    const posted = await fetch(`${alertmanager.url}/api/v2/alerts`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ labels: { alertname: 'CheckoutErrors', severity: 'critical' }, startsAt: now.toISOString(), endsAt: new Date(now.getTime() + 3_600_000).toISOString() }]),
    });
    expect(posted.status).toBe(200);
    const card = await until(() => gates().find((gate) => gate.gateId === 'guard-1'), 'the breach card', 60_000);
    expect(card.details[0]).toMatch(/🔴 \*critical alerts\*: breached since .* 1 alert firing: CheckoutErrors/);
    await until(() => JSON.stringify(cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets) === JSON.stringify([{ nodes: '0' }]), 'the NodePool budget at nodes "0"', 30_000);
    const disruptedAtHold = disrupted.size;
    await harness.parked(job.jobId, 60_000);
    expect(disrupted.size).toBe(disruptedAtHold);

    await engine.control.answerGate({ jobId: job.jobId, gateId: 'guard-1', revision: card.revision, action: 'abort', userId: 'U0APP' });
    expect((await waitForJobState(engine, job.jobId, ['aborted', 'failed', 'succeeded'], 60_000)).state).toBe('aborted');
    unsubscribe();
    expect(cluster.store.get('nodepools', 'default')?.spec?.disruption?.budgets).toEqual(originalBudgets);
  }, 300_000);
});
