import { afterEach, describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { GateModel } from '../../src/ports/timeline-event.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * A self-managed node that cannot drain: carts scaled down to one replica behind carts-pdb (minAvailable 1). The job
 * stops at the same card as a managed group's PodEvictionFailure — the pod and the PDB named, "Scale carts to 2
 * replicas" and Force offered — and the remedy lets the drain finish without breaking the budget.
 */
const CLUSTER = 'eksworkshop-eksctl';
// About the drain blocker card, not gates: the self-managed step's planned gate (issue 23) is turned off here and held by
// test/integration/plan-announces-gates.test.ts.
const clusters = [{ name: CLUSTER, region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], gates: { selfManaged: false } }];
let h: EngineHarness;
afterEach(async () => h?.close());

const nextGate = (id: (gate: GateModel) => boolean, timeoutMs = 60_000): Promise<GateModel> =>
  until(() => h.thread.events('gate-opened').map((e) => (e.kind === 'gate-opened' ? e.gate : undefined)).find((g) => g && id(g)), 'the gate to open', timeoutMs);

describe('upgrade engine: a blocked self-managed drain', () => {
  it('opens the blocker card with the remedy and Force, and the remedy lets the group finish', async () => {
    h = await startEngineHarness({ scenario: 'workshop', speed: 600, config: parseClustersConfig({ clusters }), stepKinds: ['preflight', 'gate', 'control-plane', 'self-managed', 'verify'] });
    const store = h.sim.world.kube(CLUSTER)!;
    store.mutate('deployments', 'carts', 'carts', (d) => void (d.spec.replicas = 1));
    const engine = h.engine();
    await engine.startWorker();
    const { job } = await h.start(engine.control, h.request({ cluster: CLUSTER, channel: 'C0OPS', to: '1.26' }), '1.25');
    const answer = async (gate: GateModel, action: 'continue' | 'force' | 'remedy', reason?: string) =>
      expect(await engine.control.answerGate({ jobId: job.jobId, gateId: gate.gateId, revision: gate.revision, action, userId: 'U0APP', reason })).toEqual({ outcome: 'accepted' });

    await answer(await nextGate((g) => g.gateId === 'h1-preflight'), 'force', 'known, handled in Git');
    await answer(await nextGate((g) => g.gateId === 'h1-control-plane'), 'continue');
    const drain = await nextGate((g) => g.gateId.includes('-smg-') && g.gateId.includes('-drain-'));
    expect(drain.title).toMatch(/^Self-managed group default-selfmng-2025032502302075740000002b could not drain ip-/);
    expect(drain.details.join('\n')).toMatch(/pod carts\/carts-\S+ on ip-\S+ is protected by PDB carts\/carts-pdb \(0 disruptions allowed\)/);
    expect(drain.actions).toEqual(['remedy', 'force', 'abort']);
    expect(drain.remedyLabel).toBe('Scale carts to 2 replicas');
    // The node that cannot drain is not terminated; the group's other node may already have been replaced (which
    // node holds the one carts pod left after the scale-down is up to the simulated scheduler).
    expect(h.calls('TerminateInstanceInAutoScalingGroup').length).toBeLessThan(2);

    await answer(drain, 'remedy');
    const done = await waitForJobState(engine, job.jobId, ['succeeded', 'failed', 'aborted'], 90_000);
    expect(done.state, JSON.stringify(h.thread.events('step-failed'))).toBe('succeeded');
    expect(store.get('deployments', 'carts', 'carts')?.spec?.replicas).toBe(2);
    expect(h.calls('TerminateInstanceInAutoScalingGroup')).toHaveLength(2);
    expect(h.sim.world.pdbMinimums.get(`${CLUSTER}/carts/carts-pdb`)!.minHealthy).toBeGreaterThanOrEqual(1);
  }, 150_000);
});
