import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EksPort, EksPortFactory } from '../../src/ports/aws/eks-port.js';
import { countingKube, simAdapters } from '../support/counting-kube-port.js';
import { makeNode, removeNode } from '@eks-upgrade-bot/sim';
import { NODEGROUP_SETTLE } from '../../jobs/steps/nodegroups/nodegroup-watch.js';
import type { UpgradeEngine } from '../../jobs/worker/create-upgrade-engine.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';
import { until } from '../support/until.js';

/**
 * The in-place node-group rollout against the simulator (demo: demo-ng, 2 nodes, 1.30 → 1.31), through the real SDK
 * and client-node: the step is done when every node of the group is at the target and Ready — not merely when EKS
 * says the update is Successful — its node progress comes from a watch (no node listing in a loop) while the AWS
 * update is read at the bounded poll rate, and verify fails when an upgraded group still has a node behind.
 */
const POLL_MS = 50;
const STRAY = 'ip-192-168-99-99.us-west-2.compute.internal';
let h: EngineHarness;
const settleDefault = NODEGROUP_SETTLE.timeoutMs;

beforeEach(async () => {
  h = await startEngineHarness();
});
afterEach(async () => {
  NODEGROUP_SETTLE.timeoutMs = settleDefault;
  await h.close();
});

/** Counts what the engine asks of Kubernetes and of DescribeUpdate, on top of the real adapters. */
function countingPorts(sim: EngineHarness['sim']) {
  const { eks: realEks, kube: realKube } = simAdapters(sim);
  const counting = countingKube(realKube);
  const seen = { lists: counting.lists, watches: counting.watches, nodegroupDescribeUpdates: [] as number[] };
  const eks: EksPortFactory = (target) => {
    const port = realEks(target);
    return new Proxy(port, {
      get(object, prop: keyof EksPort) {
        if (prop !== 'describeUpdate') return object[prop];
        return (async (cluster: string, id: string, scope?: { nodegroupName?: string }) => {
          if (scope?.nodegroupName) seen.nodegroupDescribeUpdates.push(Date.now());
          return object.describeUpdate(cluster, id, scope);
        }) as EksPort['describeUpdate'];
      },
    });
  };
  return { eks, kube: counting.kube, seen };
}

/** Once the simulated update has launched its new nodes, an old node of the group that EKS will not remove appears. */
async function addLingeringOldNode(harness: EngineHarness): Promise<void> {
  const cluster = harness.sim.world.cluster('demo')!;
  // Polled closely: the old node must appear while the update is still rolling.
  await until(() => cluster.store.list('nodes').some((n) => String(n.status?.nodeInfo?.kubeletVersion).startsWith('v1.31.')), 'the node-group update to launch a 1.31 node', { intervalMs: 5 });
  // A terminated instance whose Node object outlives it: cordoned, NotReady, still labelled with its group.
  cluster.store.create('nodes', makeNode({
    name: STRAY, labels: { 'eks.amazonaws.com/nodegroup': 'demo-ng' }, kubeletVersion: 'v1.30.14-eks-f69f56f',
    instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2', ready: false, unschedulable: true,
  }));
}

async function startAndApprove(engine: UpgradeEngine): Promise<string> {
  await engine.startWorker();
  const { job } = await h.start(engine.control, h.request(), '1.30');
  await h.thread.waitFor((posts) => posts.some((p) => p.event.kind === 'gate-opened'), 20_000, 'the gate');
  await engine.control.answerGate({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, action: 'continue', userId: 'U0APP' });
  // The node group's own gate, which the plan announces (issue 23).
  const nodegroupGate = await until(() => h.thread.events('gate-opened').map((e) => (e.kind === 'gate-opened' ? e.gate : undefined)).find((g) => g && g.gateId !== 'h1-control-plane'), "the node group's planned gate", 60_000);
  await engine.control.answerGate({ jobId: job.jobId, gateId: nodegroupGate.gateId, revision: nodegroupGate.revision, action: 'continue', userId: 'U0APP' });
  return job.jobId;
}

const nodegroupUpdate = () => h.sim.world.cluster('demo')!.updates.find((u) => u.scope.nodegroupName === 'demo-ng');
const stepFinished = (step: string) => h.thread.events('step-finished').find((e) => e.kind === 'step-finished' && e.step === step);

describe('managed node group in place: done when the nodes say so', () => {
  it('waits for an old node that outlives the Successful update, reports it from the watch, and finishes once it is gone', async () => {
    const ports = countingPorts(h.sim);
    const engine = h.engine({ eks: ports.eks, kube: ports.kube, pollIntervalMs: POLL_MS });
    const jobId = await startAndApprove(engine);
    await addLingeringOldNode(h);

    await until(() => nodegroupUpdate()?.status === 'Successful', 'the node-group update to be Successful', { intervalMs: 5 });
    expect(nodegroupUpdate()?.status).toBe('Successful');
    // EKS is done, the group is not: the step keeps waiting and says why.
    const waiting = 'Node group demo-ng: 2/2 nodes at 1.31 (1 old node drained, terminating)';
    await until(() => h.thread.lastCard()?.progress === waiting, () => `the card to say "${waiting}"; it says "${h.thread.lastCard()?.progress}"`, { intervalMs: 10 });
    expect(h.thread.lastCard()?.progress).toBe(waiting);
    // The step re-reads the group on every watch event and keeps waiting while an old node is there: the old node
    // coming back Ready and schedulable shows on the card, and the step has still not finished.
    h.sim.world.cluster('demo')!.store.mutate('nodes', STRAY, undefined, (node) => {
      node.spec.unschedulable = false;
      node.status.conditions = node.status.conditions.map((c: { type: string }) => (c.type === 'Ready' ? { ...c, status: 'True', reason: 'KubeletReady' } : c));
    });
    const back = 'Node group demo-ng: 2/2 nodes at 1.31 (1 old node waiting)';
    await until(() => h.thread.lastCard()?.progress === back, 'the card to show the old node back', { intervalMs: 10 });
    expect(stepFinished('h1-managed-nodegroups')).toBeUndefined();

    const removedAt = Date.now();
    removeNode(h.sim.world, h.sim.world.cluster('demo')!, STRAY);
    const ended = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted'], 30_000);
    expect(ended.state).toBe('succeeded');
    const finished = stepFinished('h1-managed-nodegroups');
    expect(finished?.at).toBeGreaterThanOrEqual(removedAt);
    expect(finished?.kind === 'step-finished' && finished.summary).toBe('demo-ng 1.30 → 1.31 (in place)');
    const progress = h.thread.events('progress').map((e) => (e.kind === 'progress' ? e.text : ''));
    expect(progress).toContain('Node group demo-ng: 2/2 nodes at 1.31 and Ready; no old nodes left.');
    // Old nodes counted as they go. Which count is seen first depends on how many left between two watch events: on
    // a busy machine the first one read can already be the second of three (7 December, a second suite beside it).
    expect(progress.some((t) => /^Node group demo-ng: \d\/2 nodes at 1\.31.*; [12]\/[23] old nodes gone\.$/.test(t)), progress.join('\n')).toBe(true);
    const verify = stepFinished('h1-verify');
    expect(verify?.kind === 'step-finished' && verify.summary).toMatch(/2 node\(s\), kubelets 1\.31 ×2; .*every node of demo-ng at 1\.31/);

    // Node progress came from one watch of the group's nodes (and one of pods), never from listing them in a loop.
    expect(ports.seen.watches).toContain('nodes eks.amazonaws.com/nodegroup in (demo-ng)');
    expect(ports.seen.lists.filter((l) => l.includes('eks.amazonaws.com/nodegroup'))).toEqual([]);
    expect(ports.seen.lists.filter((l) => l === 'nodes').length).toBeLessThanOrEqual(3);
    // The AWS update was read at most once per poll interval (plus the first read).
    const reads = ports.seen.nodegroupDescribeUpdates;
    const span = reads.at(-1)! - reads[0];
    expect(reads.length).toBeLessThanOrEqual(Math.ceil(span / POLL_MS) + 2);
  });

  it('warns after the settle timeout and verify fails, naming the node still at 1.30', async () => {
    NODEGROUP_SETTLE.timeoutMs = 1_000;
    const engine = h.engine({ pollIntervalMs: POLL_MS });
    const jobId = await startAndApprove(engine);
    await addLingeringOldNode(h);
    const ended = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted'], 30_000);
    expect(ended.state).toBe('failed');

    const warning = h.thread.posts.find((p) => p.key === `${jobId}:h1-managed-nodegroups:ng:demo-ng:unsettled`);
    expect(warning?.event.kind === 'note' && warning.event.text).toMatch(
      new RegExp(`^Node group demo-ng: EKS reports it at 1\\.31, but 1s later 1 node\\(s\\) not at 1\\.31 and Ready:\\n• ${STRAY.replaceAll('.', '\\.')} \\(v1\\.30\\.14-eks-f69f56f, NotReady\\)`),
    );
    expect(stepFinished('h1-managed-nodegroups')?.kind === 'step-finished' && stepFinished('h1-managed-nodegroups')).toMatchObject({
      summary: 'demo-ng 1.30 → 1.31 (in place; 1 node(s) not at 1.31 and Ready after 1s)',
    });
    const failed = h.thread.events('step-failed')[0];
    expect(failed?.kind === 'step-failed' && failed.step).toBe('h1-verify');
    expect(failed?.kind === 'step-failed' && failed.error).toBe(
      `Verifying demo at 1.31: 1 node(s) of node group(s) this job upgraded are not at 1.31: ${STRAY} (demo-ng, v1.30.14-eks-f69f56f)`,
    );
    expect(failed?.kind === 'step-failed' && failed.remedy).toMatch(/kubectl delete node <name>/);
    expect(h.calls('UpdateNodegroupVersion')).toHaveLength(1);
  });
});
