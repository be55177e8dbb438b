import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createKarpenterStep, karpenterCleanup } from '../../jobs/steps/karpenter/karpenter-step.js';
import type { KubeObject, KubeWatchHandle } from '../../src/ports/kube-port.js';
import { amiIdFor, SCENARIOS_DIR, type SimServer, startSimulator, TWIN_LOOP_GAP_MS } from '@eks-upgrade-bot/sim';
import { createStepRig, upgradeControlPlane, type StepRig } from '../support/karpenter-step-context.js';
import { execute } from '../../jobs/engine/execute-commands.js';
import type { PointNodeClassCommand, SetNodePoolBudgetsCommand } from '../../jobs/engine/commands.js';

/**
 * The Karpenter step on seed 000's drift lab, called directly with the real adapters against the simulator over
 * HTTP. The step's clock is the simulator's (600× real time), so its three-minute follow windows pass in a fraction
 * of a second and every test crosses several park-and-resume cycles, as a job in BullMQ would.
 */
const CLUSTER = 'eksworkshop-eksctl';
const AMI_131 = amiIdFor('1.31', 'AL2023');
let sim: SimServer | undefined;
let watch: KubeWatchHandle | undefined;
afterEach(async () => {
  watch?.stop();
  await sim?.close();
  sim = watch = undefined;
});

const isDisrupted = (node: KubeObject) => (node.spec?.taints ?? []).some((t: { key: string }) => t.key === 'karpenter.sh/disrupted');
const store = () => sim!.world.cluster(CLUSTER)!.store;
const checkoutNodes = () => store().list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === 'default');
const budgets = () => store().get('nodepools', 'default')?.spec?.disruption?.budgets;

/** Counts nodes tainted for disruption at every node event, through a watch of our own. */
async function observeDisruption(rig: StepRig, onDisrupted?: () => void): Promise<{ max: () => number }> {
  const nodes = new Map<string, KubeObject>();
  let max = 0;
  const measure = () => {
    const count = [...nodes.values()].filter(isDisrupted).length;
    if (count > 0) onDisrupted?.();
    max = Math.max(max, count);
  };
  watch = await rig.kube.watch('nodes', { labelSelector: 'karpenter.sh/nodepool=default' }, {
    onSynced: (items) => {
      nodes.clear();
      for (const item of items) nodes.set(item.metadata.name, item);
      measure();
    },
    onEvent: (type, node) => {
      if (type === 'DELETED') nodes.delete(node.metadata.name);
      else nodes.set(node.metadata.name, node);
      measure();
    },
  });
  return { max: () => max };
}

/** The simulator's Kubernetes request counts, by "<verb> <kind>". */
async function kubeRequests(): Promise<Record<string, number>> {
  const { kube } = (await (await fetch(`${sim!.url}/_sim/requests`)).json()) as { kube: Record<string, number> };
  return kube;
}

/** How many PATCH requests for `kind` the simulator's Kubernetes API has answered. */
async function patches(kind: string): Promise<number> {
  return (await kubeRequests())[`patch ${kind}`] ?? 0;
}

async function startLab(scenario: string | object = 'karpenter-lab', speed = 600) {
  // Real time in which this process did not get to run does not count as simulated time (as for a rehearsal's twin):
  // beside a second suite at load 11 (7 December), Karpenter had started on the second node before the step's next
  // tick could see the pause, in what was a held-up process's moment.
  sim = await startSimulator({ scenario, port: 0, host: '127.0.0.1', speed, loopGapMs: TWIN_LOOP_GAP_MS });
  return createStepRig(sim, { cluster: CLUSTER, kind: 'karpenter', from: '1.30', to: '1.31', upgradeBudget: '1' });
}

describe('Karpenter step: the drift lab (seed 000)', () => {
  it('replaces both checkout nodes one at a time under budget "1", then restores nodes 10%', async () => {
    const rig = await startLab();
    await upgradeControlPlane(rig, CLUSTER, '1.31');
    const observed = await observeDisruption(rig);
    const oldNodes = checkoutNodes().map((n) => n.metadata.name);

    const { result, runs } = await rig.runUntilSettled(createKarpenterStep());

    expect(result.outcome).toBe('done');
    expect(runs).toBeGreaterThan(1); // parked between windows and carried on from job data
    const nodes = checkoutNodes();
    expect(nodes).toHaveLength(2);
    expect(nodes.map((n) => n.metadata.name).filter((name) => oldNodes.includes(name))).toEqual([]);
    expect(nodes.every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.'))).toBe(true);
    const pods = store().list('pods', 'checkout').filter((p) => !p.metadata.deletionTimestamp);
    expect(pods).toHaveLength(11); // checkout ×10 and checkout-redis
    expect(pods.every((p) => p.status?.phase === 'Running' && nodes.some((n) => n.metadata.name === p.spec?.nodeName))).toBe(true);
    expect(observed.max()).toBe(1);
    expect(budgets()).toEqual([{ nodes: '10%' }]);
    expect(store().get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms).toEqual([{ id: AMI_131 }]);

    expect(rig.progress).toContain('NodeClaims replaced 2/2');
    const texts = rig.texts();
    expect(texts).toContain('Disruption budget for the upgrade: NodePool default nodes 10% → nodes 1 (put back at the end).');
    expect(texts.some((t) => t.startsWith(`EC2NodeClass default: amiSelectorTerms → ${AMI_131} (AL2023 1.31 from SSM)`))).toBe(true);
    expect(texts).toContain('Original disruption budgets restored: NodePool default nodes 10%.');
    expect(result.outcome === 'done' && result.summary).toBe(
      'NodeClaims replaced 2/2 in default; at most 1 node(s) disrupted at once; 2/2 node(s) at 1.31, 15/15 pod(s) Running; budgets restored on default (nodes 10%)',
    );
  }, 60_000);

  it('keeps its watches between follow windows: each kind is listed and watched once while the job parks and resumes', async () => {
    // At 200×, not 600×: every run of the step costs real time, which at 600× on a busy machine was enough simulated
    // time for the drift to end in two runs instead of several (beside a second suite, 7 December). Two runs are one
    // park and one resume, which is what the counts below are about.
    const rig = await startLab('karpenter-lab', 200);
    await fetch(`${sim!.url}/_sim/requests`, { method: 'DELETE' });
    const { result, runs } = await rig.runUntilSettled(createKarpenterStep({ windowMs: 60_000 }));
    expect(result.outcome).toBe('done');
    expect(runs).toBeGreaterThanOrEqual(2);
    const kube = await kubeRequests();
    // Nodes and NodeClaims are also listed once by the step's plan read, before it follows anything.
    for (const kind of ['pods', 'events', 'poddisruptionbudgets']) {
      expect({ kind, list: kube[`list ${kind}`], watch: kube[`watch ${kind}`] }).toEqual({ kind, list: 1, watch: 1 });
    }
    expect([kube['watch nodes'], kube['watch nodeclaims']]).toEqual([1, 1]);
  }, 60_000);

  it('sets nodes "0" at once on Pause, holds the rollout, and carries on after Resume', async () => {
    // Slower, so a busy machine's delays (a few real ms are a simulated minute at 600×) cannot let a second
    // replacement start between Karpenter's first taint and the step's next tick.
    const rig = await startLab('karpenter-lab', 200);
    await upgradeControlPlane(rig, CLUSTER, '1.31');
    // Pause the moment Karpenter starts on the first node; the step sees it at its next tick, inside the window.
    await observeDisruption(rig, () => rig.controls.pauseSeq === 0 && Object.assign(rig.controls, { paused: true, pauseSeq: 1, pausedBy: 'U0APP' }));
    let held: string[] | undefined;
    const { result } = await rig.runUntilSettled(createKarpenterStep(), {
      between: async () => {
        if (!rig.controls.paused) return;
        expect(budgets()).toEqual([{ nodes: '0' }]);
        // The old node Karpenter had not started on stays untouched through ten paused minutes.
        held = checkoutNodes().filter((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.30.') && !isDisrupted(n)).map((n) => n.metadata.name);
        await sim!.clock.sleep(10 * 60_000);
        const still = checkoutNodes().filter((n) => held!.includes(n.metadata.name));
        expect(still.map((n) => n.metadata.name)).toEqual(held);
        expect(still.filter(isDisrupted)).toEqual([]);
        Object.assign(rig.controls, { paused: false, resumedBy: 'U0APP' });
      },
    });
    expect(held).toHaveLength(1);
    expect(result.outcome).toBe('done');
    expect(budgets()).toEqual([{ nodes: '10%' }]);
    expect(checkoutNodes().every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.'))).toBe(true);
    expect(rig.texts().some((t) => t.startsWith('Paused: NodePool default set to nodes 0'))).toBe(true);
    expect(rig.texts().some((t) => t.startsWith('Resumed: disruption budget back to the upgrade'))).toBe(true);
  }, 60_000);

  it('on Abort puts the original budget back and leaves the EC2NodeClass on the target', async () => {
    const rig = await startLab();
    await upgradeControlPlane(rig, CLUSTER, '1.31');
    const { result } = await rig.runUntilSettled(createKarpenterStep(), {
      between: () => void Object.assign(rig.controls, { abort: { by: 'U0APP', at: sim!.clock.now() } }),
    });
    expect(result).toMatchObject({ outcome: 'abort', by: 'U0APP' });
    expect(result.outcome === 'abort' && result.reason).toMatch(/^<@U0APP> aborted during the Karpenter rollout; budgets restored on default \(nodes 10%\); EC2NodeClass default on id ami-/);
    expect(budgets()).toEqual([{ nodes: '10%' }]);
    expect(store().get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms).toEqual([{ id: AMI_131 }]);
    // The processor's cleanup after the abort finds nothing left to restore.
    await karpenterCleanup(rig.context());
    expect(budgets()).toEqual([{ nodes: '10%' }]);
  }, 60_000);

  it('survives a worker shut down mid-window: the next run restores the original, never the upgrade budget', async () => {
    const rig = await startLab();
    await upgradeControlPlane(rig, CLUSTER, '1.31');
    // A window long enough that the first run is still inside it when its sleep is cut.
    const step = createKarpenterStep({ windowMs: 60 * 60_000 });
    // First run: the worker's sleep is cut (SIGTERM) inside the follow window, after both patches went out.
    const dying = rig.context({ sleep: () => Promise.reject(new Error('worker closing')) });
    await expect(step(dying)).rejects.toThrow('worker closing');
    expect(budgets()).toEqual([{ nodes: '1' }]);
    const { result } = await rig.runUntilSettled(step);
    expect(result.outcome).toBe('done');
    expect(budgets()).toEqual([{ nodes: '10%' }]);
    expect(rig.texts().filter((t) => t.startsWith('Disruption budget for the upgrade'))).toHaveLength(1);
  }, 60_000);

  it('leaves an al2023@latest class alone: the control-plane upgrade drifts its nodes', async () => {
    const scenario = parseYaml(readFileSync(`${SCENARIOS_DIR}karpenter-lab.yaml`, 'utf8'));
    scenario.clusters[0].karpenter.ec2NodeClasses[0].spec.amiSelectorTerms = [{ alias: 'al2023@latest' }];
    // At 60× rather than 600×: Karpenter starts this drift by itself once the control plane is at 1.31, and on a busy
    // machine the seconds before the step's first read were whole minutes at 600× (it found one NodeClaim of two
    // already replaced, beside a second suite on 7 December).
    const rig = await startLab(scenario, 60);
    await upgradeControlPlane(rig, CLUSTER, '1.31');
    const { result } = await rig.runUntilSettled(createKarpenterStep());
    expect(result.outcome).toBe('done');
    expect(store().get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms).toEqual([{ alias: 'al2023@latest' }]);
    expect(checkoutNodes().every((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.'))).toBe(true);
    // It followed the drift to its end: its last count has every NodeClaim it counted replaced (2/2 unless Karpenter
    // got to one before the step's first read).
    const counts = rig.progress.filter((line) => line.startsWith('NodeClaims replaced')).map((line) => /^NodeClaims replaced (\d+)\/(\d+)/.exec(line)!.slice(1).map(Number));
    const [done, of] = counts.at(-1) ?? [0, 0];
    expect([done, of >= 1]).toEqual([of, true]);
    expect(counts.some(([replaced]) => replaced < done)).toBe(true);
    expect(budgets()).toEqual([{ nodes: '10%' }]);
  }, 180_000);

  it('shows the blocked node in one message kept in place, with the blocking pod; records the notice; warns when the drift stalls', async () => {
    sim = await startSimulator({ scenario: 'karpenter-do-not-disrupt', port: 0, host: '127.0.0.1', speed: 600 });
    const rig = await createStepRig(sim, { cluster: CLUSTER, kind: 'karpenter', from: '1.30', to: '1.31', upgradeBudget: '1' });
    await upgradeControlPlane(rig, CLUSTER, '1.31');
    const step = createKarpenterStep({ stallMs: 10 * 60_000 });
    const { result } = await rig.runUntilSettled(step, {
      between: () => {
        if (rig.texts().some((t) => t.startsWith('NodePool default: no NodeClaim replaced for'))) Object.assign(rig.controls, { abort: { by: 'U0APP', at: 0 } });
      },
    });
    expect(result.outcome).toBe('abort');
    const redis = store().list('pods', 'checkout').find((p) => p.metadata.name.startsWith('checkout-redis-'))!;
    // No post per notice: the thread has the pool's one blocked-nodes message, ended by the abort.
    expect(rig.texts().filter((t) => /Karpenter cannot/.test(t))).toEqual([]);
    const versions = rig.messages.get('job-1:h1-karpenter:blocked:default')!;
    const shown = versions.filter((v) => v.state === 'running').at(-1)!;
    expect(shown.title).toBe('Blocked disruptions in NodePool default');
    expect(shown.progress).toMatch(/^1 node of NodePool default cannot be replaced now \(1 node blocked so far/);
    expect(shown.progress).toContain(`: Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=checkout/${redis.metadata.name}) — blocking pods: checkout/${redis.metadata.name}`);
    expect(shown.progress).toContain('What to do: remove the karpenter.sh/do-not-disrupt annotation');
    expect(versions.at(-1)).toMatchObject({ state: 'aborted', summary: expect.stringMatching(/^Aborted with 1 node still blocked/) });
    // The export's record keeps the notice itself.
    const recorded = rig.timeline.map((entry) => ('text' in entry.event ? entry.event.text : '')).filter((t) => t.startsWith('Karpenter cannot replace node'));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toContain(`(NodePool default): Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=checkout/${redis.metadata.name})`);
    expect(recorded[0]).toContain(`Blocking pods: checkout/${redis.metadata.name}`);
    expect(rig.progress.at(-1)).toMatch(/^NodeClaims replaced 1\/2, 1 drifted, waiting$/);
    expect(budgets()).toEqual([{ nodes: '10%' }]);
  }, 60_000);

  it('in a dry run reports the pool, the AMI change and the budget, and changes nothing', async () => {
    // At real speed: a dry run only reads. At 600×, beside a second suite, the simulated Karpenter had minutes of
    // simulated time to change the lab before the read, and the dry run counted one NodeClaim instead of two.
    sim = await startSimulator({ scenario: 'karpenter-lab', port: 0, host: '127.0.0.1', speed: 1 });
    const rig = await createStepRig(sim, { cluster: CLUSTER, kind: 'karpenter', from: '1.30', to: '1.31', upgradeBudget: '1', dryRun: true });
    const result = await createKarpenterStep()(rig.context());
    expect(result.outcome).toBe('dry-run');
    expect(result.outcome === 'dry-run' && result.summary).toBe(
      `would: NodePool default (EC2NodeClass default, x86_64): budget nodes 10% → nodes 1 while 2 NodeClaim(s) are replaced, then back; amiSelectorTerms id ami-0f676a166352f02ab → id ${AMI_131} (AL2023 1.31 from SSM)`,
    );
    expect(budgets()).toEqual([{ nodes: '10%' }]);
    expect(store().get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms).toEqual([{ id: 'ami-0f676a166352f02ab' }]);
    expect(rig.data.stepState['h1-karpenter'] ?? {}).toEqual({});
  }, 30_000);
});

describe('the executor\'s Kubernetes commands, against the drift lab', () => {
  it('sets a NodePool\'s budgets once (a repeat reads them already so and patches nothing) and points an EC2NodeClass the same way', async () => {
    const rig = await startLab();
    const ctx = rig.context();
    const set: SetNodePoolBudgetsCommand = { kind: 'set-nodepool-budgets', pool: 'default', budgets: [{ nodes: '1' }] };
    const first = await execute(ctx, set);
    expect(first).toMatchObject({ kind: 'set' });
    expect(budgets()).toEqual([{ nodes: '1' }]);
    // Counted at the API (the simulated Karpenter writes the pool's status meanwhile, which a resourceVersion would count).
    const poolPatches = await patches('nodepools');
    expect(poolPatches).toBeGreaterThan(0);
    expect(await execute(ctx, set)).toEqual({ kind: 'unchanged' });
    expect(await patches('nodepools')).toBe(poolPatches);
    expect(await execute(ctx, { ...set, pool: 'no-such-pool' })).toEqual({ kind: 'gone' });

    const nodeClass = store().list('ec2nodeclasses')[0].metadata.name;
    const point: PointNodeClassCommand = { kind: 'point-node-class', nodeClass, terms: [{ id: AMI_131 }] };
    await execute(ctx, point);
    expect(store().get('ec2nodeclasses', nodeClass)?.spec?.amiSelectorTerms).toEqual([{ id: AMI_131 }]);
    const classPatches = await patches('ec2nodeclasses');
    expect(classPatches).toBeGreaterThan(0);
    await execute(ctx, point);
    expect(await patches('ec2nodeclasses')).toBe(classPatches);
    await expect(execute(ctx, { ...point, nodeClass: 'gone' })).rejects.toThrow('Pointing EC2NodeClass gone at the 1.31 AMI failed: it no longer exists');
  });

  it('cordons a node once: a repeat (a re-run after a crash) patches nothing, and a node already gone is no failure', async () => {
    const rig = await startLab();
    const ctx = rig.context();
    const node = checkoutNodes()[0].metadata.name;
    await execute(ctx, { kind: 'cordon-node', node });
    expect(store().get('nodes', node)?.spec?.unschedulable).toBe(true);
    const nodePatches = await patches('nodes');
    expect(nodePatches).toBeGreaterThan(0);
    await execute(ctx, { kind: 'cordon-node', node });
    expect(await patches('nodes')).toBe(nodePatches);
    expect(await execute(ctx, { kind: 'cordon-node', node: 'ip-10-9-9-9.no-such-node' })).toEqual({ kind: 'done' });
  });
});
