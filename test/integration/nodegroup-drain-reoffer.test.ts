import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRAIN_RECHECK } from '../../jobs/steps/nodegroups/blue-green-nodegroup.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * A gate answer that does not clear the block is not the end of the road: demo-ng (demo 1.30 → 1.31, blue/green)
 * runs `orders` — one replica behind `orders-pdb` minAvailable 1 — so deleting blue cannot evict it. The approver
 * answers the drain card with Continue (keep waiting); the PDB still blocks, so after DRAIN_RECHECK the bot says so
 * and posts a fresh card (revision 2) with the same choices. Force on that card deletes the pod and the upgrade
 * completes. Real SDK, client-node and BullMQ against the simulator, as in nodegroup-blue-green-force.test.ts.
 */
const config = parseClustersConfig({
  clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'], nodegroups: { 'demo-ng': { strategy: 'blue-green' } } }],
});
const recheckDefault = DRAIN_RECHECK.ms;
let h: EngineHarness;
beforeEach(async () => {
  h = await startEngineHarness({ config });
  DRAIN_RECHECK.ms = 1_500;
});
afterEach(async () => {
  DRAIN_RECHECK.ms = recheckDefault;
  await h.close();
});

function addOrders(h: EngineHarness): void {
  const store = h.sim.world.kube('demo')!;
  const labels = { app: 'orders' };
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'orders' } });
  store.create('deployments', {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'orders', namespace: 'orders', labels },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'orders', image: 'public.ecr.aws/aws-containers/retail-store-sample-orders:0.4.0', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } } },
  });
  store.create('poddisruptionbudgets', { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'orders-pdb', namespace: 'orders' }, spec: { minAvailable: 1, selector: { matchLabels: labels } } });
}

describe('a drain gate answer that does not clear the block', () => {
  it('re-checks and offers the choice again on a fresh card; Force on it finishes the upgrade', async () => {
    addOrders(h);
    await until(() => h.sim.world.kube('demo')!.list('pods', 'orders').some((pod) => pod.status?.phase === 'Running'), 'the orders pod to run');
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    const drainCards: GateModel[] = [];
    await answerGatesUntilEnded(engine, h.thread, job.jobId, (gate) => {
      const drain = gate.gateId.endsWith('-drain');
      if (drain) drainCards.push(gate);
      // First drain card: Continue (the PDB still blocks). The fresh card: Force. Preflight findings: Force.
      const action = drain ? (drainCards.length === 1 ? 'continue' : 'force') : gate.actions.includes('continue') ? 'continue' : 'force';
      return action === 'force' ? { action, reason: 'orders moves now' } : { action };
    });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 10_000);
    expect(h.thread.events('step-failed')).toEqual([]);
    expect(ended.state).toBe('succeeded');

    // Two cards for the same gate: the first answered Continue, then a fresh one with the same choices.
    expect(drainCards.map((gate) => [gate.gateId, gate.revision])).toEqual([['h1-bg-demo-ng-drain', 1], ['h1-bg-demo-ng-drain', 2]]);
    expect(drainCards[1].actions).toEqual(drainCards[0].actions);
    const answers = h.thread.events('gate-answered').filter((e) => e.kind === 'gate-answered' && e.gate.gateId === 'h1-bg-demo-ng-drain');
    expect(answers.map((e) => (e.kind === 'gate-answered' ? [e.gate.revision, e.action] : []))).toEqual([[1, 'continue'], [2, 'force']]);
    // Between them, the thread says why the choice comes back.
    const notes = h.thread.events('note').map((e) => (e.kind === 'note' ? e.text : ''));
    expect(notes.filter((text) => text.startsWith('The drain of demo-ng is still blocked'))).toEqual([expect.stringMatching(/after Continue; the choice is offered again below\.$/)]);
    expect([...h.sim.world.cluster('demo')!.nodegroups.keys()]).toEqual(['demo-ng-1-31']);
  });
});
