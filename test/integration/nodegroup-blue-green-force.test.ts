import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { answerGatesUntilEnded, startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * Force on a blue/green drain blocked by a PDB (issue 5): demo-ng (demo 1.30 → 1.31) also runs the workshop's
 * `orders` — one replica behind `orders-pdb` minAvailable 1 — so deleting the blue group cannot evict it and EKS
 * reports PodEvictionFailure. The approver answers the drain card with Force and a reason; the bot deletes the
 * orders pod (a delete is not an eviction), its Deployment recreates it on the green group, the deletion of blue
 * completes, and the thread says who forced, which pod was deleted and why. Real SDK, client-node and BullMQ
 * against the simulator, as in nodegroup-blue-green.test.ts.
 */
const REASON = 'orders is drained in the maintenance window; agreed in #platform';
const config = parseClustersConfig({
  clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'], nodegroups: { 'demo-ng': { strategy: 'blue-green' } } }],
});
let h: EngineHarness;
beforeEach(async () => {
  h = await startEngineHarness({ config });
});
afterEach(async () => {
  await h.close();
});

function addOrders(h: EngineHarness): void {
  const store = h.sim.world.kube('demo')!;
  const labels = { app: 'orders' };
  store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'orders' } });
  store.create('deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'orders', namespace: 'orders', labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'orders', image: 'public.ecr.aws/aws-containers/retail-store-sample-orders:0.4.0', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] } },
    },
  });
  store.create('poddisruptionbudgets', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'orders-pdb', namespace: 'orders' },
    spec: { minAvailable: 1, selector: { matchLabels: labels } },
  });
}

const ordersPods = (h: EngineHarness): KubeObject[] =>
  h.sim.world.kube('demo')!.list('pods', 'orders').filter((pod) => !pod.metadata.deletionTimestamp);

describe('managed node group blue/green, drain blocked by a PDB', () => {
  it('offers Force on the drain card; Force deletes the orders pod, blue is deleted, orders runs on green, and the thread says who forced and why', async () => {
    addOrders(h);
    await until(() => ordersPods(h).some((pod) => pod.spec?.nodeName && pod.status?.phase === 'Running'), 'the orders pod to run on a demo-ng node');
    const blockedPod = ordersPods(h)[0].metadata.name;

    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request(), '1.30');
    const { gates } = await answerGatesUntilEnded(engine, h.thread, job.jobId, (gate) => {
      // The drain card is forced with a reason; a preflight finding about orders-pdb is only passable with Force too.
      const force = gate.gateId.endsWith('-drain') || !gate.actions.includes('continue');
      return force ? { action: 'force', reason: REASON } : { action: 'continue' };
    });
    const ended = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 10_000);
    expect(h.thread.events('step-failed')).toEqual([]);
    expect(ended.state).toBe('succeeded');

    // The card: the blocking pod and PDB, the safe remedy, and Force.
    const drain = gates.find((gate) => gate.gateId === 'h1-bg-demo-ng-drain');
    expect(drain, 'the drain gate opened').toBeDefined();
    expect(drain!.actions).toEqual(['remedy', 'force', 'continue', 'abort']);
    expect(drain!.remedyLabel).toBe('Scale orders to 2 replicas');
    expect(drain!.details.filter((line) => line.startsWith(`pod orders/${blockedPod} on `))).toEqual([expect.stringMatching(/is protected by PDB orders\/orders-pdb \(0 disruptions allowed\)$/)]);
    const answer = h.thread.events('gate-answered').find((e) => e.kind === 'gate-answered' && e.gate.gateId === 'h1-bg-demo-ng-drain');
    expect(answer?.kind === 'gate-answered' && [answer.action, answer.by, answer.reason]).toEqual(['force', 'U0APP', REASON]);

    // The note: which pod was deleted, by whom, and why — posted once.
    const notes = h.thread.events('note').filter((e) => e.kind === 'note' && e.text.startsWith('Force on the drain of demo-ng'));
    expect(notes).toHaveLength(1);
    expect(notes[0].kind === 'note' && notes[0].text).toBe(`Force on the drain of demo-ng, by <@U0APP>: deleted \`orders/${blockedPod}\` (PDBs bypassed).\nReason: ${REASON}`);

    // The cluster: blue gone, orders running (recreated, still one replica) on green; the remedy was not applied.
    const cluster = h.sim.world.cluster('demo')!;
    expect([...cluster.nodegroups.keys()]).toEqual(['demo-ng-1-31']);
    const greenNodes = new Set(cluster.store.list('nodes').filter((n) => n.metadata.labels?.['eks.amazonaws.com/nodegroup'] === 'demo-ng-1-31').map((n) => n.metadata.name));
    const orders = ordersPods(h);
    expect(orders).toHaveLength(1);
    expect(orders[0].metadata.name).not.toBe(blockedPod);
    expect(greenNodes.has(orders[0].spec?.nodeName)).toBe(true);
    expect(cluster.store.get('deployments', 'orders', 'orders')?.spec?.replicas).toBe(1);
  });
});
