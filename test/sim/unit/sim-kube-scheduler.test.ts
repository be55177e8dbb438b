import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube-types/kube-object.js';
import { createSimKubeStore, startKubeControllers } from '../../../src/sim/kube/index.js';
import { makeNode } from '../../../src/sim/kube/controllers/make-node.js';
import { fitFailures, unschedulableMessage } from '../../../src/sim/kube/controllers/scheduler-fit.js';
import { createManualClock } from '../../../src/sim/sim-clock.js';

function node(name: string, opts: Partial<Parameters<typeof makeNode>[0]> = {}): KubeObject {
  return makeNode({ name, labels: {}, kubeletVersion: 'v1.30.14-eks-f69f56f', instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2', capacity: { cpu: '2', memory: '8Gi', pods: '29' }, ...opts });
}

function pod(name: string, spec: Record<string, unknown> = {}, cpu = '250m'): KubeObject {
  return { metadata: { name, namespace: 'orders', labels: { app: 'orders' } }, spec: { containers: [{ name: 'orders', image: 'orders:1', resources: { requests: { cpu, memory: '1Gi' } } }], ...spec } };
}

const ordersToleration = { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'OrdersApp', effect: 'NoSchedule' }] };

describe('scheduler filters', () => {
  const blue = node('blue', { labels: { type: 'OrdersMNG' }, taints: [{ key: 'dedicated', value: 'OrdersApp', effect: 'NoSchedule' }] });

  it('needs a toleration for a NoSchedule taint and a matching nodeSelector', () => {
    expect(fitFailures(pod('p'), blue, [])).toEqual(['node(s) had untolerated taint {dedicated: OrdersApp}']);
    expect(fitFailures(pod('p', { nodeSelector: { type: 'OrdersMNG' }, ...ordersToleration }), blue, [])).toEqual([]);
    expect(fitFailures(pod('p', { nodeSelector: { type: 'OrdersMNG' } }), node('plain'), [])).toEqual(["node(s) didn't match Pod's node affinity/selector"]);
  });

  it('honours required node affinity In / NotIn / Exists', () => {
    const affinity = (expr: object) => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr] }] } } } });
    const karpenter = node('k', { labels: { 'karpenter.sh/nodepool': 'default', team: 'checkout' } });
    expect(fitFailures(pod('p', affinity({ key: 'team', operator: 'In', values: ['checkout'] })), karpenter, [])).toEqual([]);
    expect(fitFailures(pod('p', affinity({ key: 'team', operator: 'NotIn', values: ['checkout'] })), karpenter, [])).toHaveLength(1);
    expect(fitFailures(pod('p', affinity({ key: 'karpenter.sh/nodepool', operator: 'Exists' })), karpenter, [])).toEqual([]);
    expect(fitFailures(pod('p', affinity({ key: 'karpenter.sh/nodepool', operator: 'Exists' })), node('mng'), [])).toHaveLength(1);
  });

  it('refuses cordoned and NotReady nodes, and counts CPU, memory and pods against allocatable', () => {
    expect(fitFailures(pod('p'), node('c', { unschedulable: true }), [])).toEqual(['node(s) were unschedulable']);
    expect(fitFailures(pod('p'), node('nr', { ready: false }), [])).toEqual(['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']);
    const busy = [pod('a', {}, '1'), pod('b', {}, '800m')];
    expect(fitFailures(pod('p'), node('n'), busy)).toEqual(['Insufficient cpu']);
    expect(fitFailures(pod('p', {}, '200m'), node('n'), busy)).toEqual([]);
    expect(fitFailures(pod('p', {}, '0'), node('n', { capacity: { cpu: '2', memory: '8Gi', pods: '2' } }), busy)).toEqual(['Too many pods']);
  });

  it('writes the FailedScheduling message as kube-scheduler does', () => {
    expect(unschedulableMessage([['Insufficient cpu'], ['node(s) had untolerated taint {dedicated: OrdersApp}'], ['node(s) had untolerated taint {dedicated: OrdersApp}']])).toBe(
      '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: OrdersApp}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    );
    expect(unschedulableMessage([])).toBe('no nodes available to schedule pods');
  });
});

describe('scheduler and kubelet on the sim clock', () => {
  let stop = () => {};
  afterEach(() => stop());

  it('binds a pod, shows it ContainerCreating, then Running and Ready with a pod IP a few sim-seconds later', async () => {
    const clock = createManualClock();
    const store = createSimKubeStore({ clusterName: 't', gitVersion: 'v1.30.14-eks-f69f56f', clock });
    store.create('nodes', node('n1', { internalIP: '10.0.3.199' }));
    stop = startKubeControllers(store, clock);
    store.create('pods', pod('orders-1'));
    await clock.advance(0);
    let p = store.get('pods', 'orders-1', 'orders')!;
    expect(p.spec.nodeName).toBe('n1');
    expect(p.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    await clock.advance(5000);
    p = store.get('pods', 'orders-1', 'orders')!;
    expect(p.status.phase).toBe('Running');
    expect(p.status.conditions.find((c: any) => c.type === 'Ready').status).toBe('True');
    expect(p.status.podIP).toMatch(/^10\.0\./);
    expect(p.status.hostIP).toBe('10.0.3.199');
    expect(store.list('events', 'orders').map((e) => e.reason)).toEqual(expect.arrayContaining(['Scheduled', 'Started']));
  });

  it('leaves a pod that fits nowhere Pending/Unschedulable with one FailedScheduling event, and places it when a node appears', async () => {
    const clock = createManualClock();
    const store = createSimKubeStore({ clusterName: 't', gitVersion: 'v1.30.14-eks-f69f56f', clock });
    store.create('nodes', node('blue', { labels: { type: 'OrdersMNG' }, taints: [{ key: 'dedicated', value: 'OrdersApp', effect: 'NoSchedule' }] }));
    store.create('nodes', node('initial'));
    stop = startKubeControllers(store, clock);
    store.create('pods', pod('checkout-1', { nodeSelector: { team: 'checkout' } }));
    await clock.advance(1000);
    const pending = store.get('pods', 'checkout-1', 'orders')!;
    expect(pending.spec.nodeName).toBeUndefined();
    expect(pending.status.conditions[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
    expect(pending.status.conditions[0].message).toBe(
      "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: OrdersApp}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    );
    const failed = store.list('events', 'orders').filter((e) => e.reason === 'FailedScheduling');
    expect(failed).toHaveLength(1);
    expect(failed[0].type).toBe('Warning');

    store.create('nodes', node('karpenter-1', { labels: { team: 'checkout' } }));
    await clock.advance(5000);
    expect(store.get('pods', 'checkout-1', 'orders')!.status.phase).toBe('Running');
  });

  it('leaves Fargate pods to the Fargate scheduler', async () => {
    const clock = createManualClock();
    const store = createSimKubeStore({ clusterName: 't', gitVersion: 'v1.30.14-eks-f69f56f', clock });
    store.create('nodes', node('n1'));
    stop = startKubeControllers(store, clock);
    store.create('pods', pod('assets-1', { schedulerName: 'fargate-scheduler' }));
    await clock.advance(5000);
    expect(store.get('pods', 'assets-1', 'orders')!.spec.nodeName).toBeUndefined();
  });
});
