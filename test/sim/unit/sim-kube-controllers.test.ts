import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube-types/kube-object.js';
import { createSimKubeStore, startKubeControllers, type SimKubeStoreImpl } from '../../../src/sim/kube/index.js';
import { makeNode } from '../../../src/sim/kube/controllers/make-node.js';
import { createNamedPod } from '../../../src/sim/kube/controllers/create-named-pod.js';
import { planRollout, type PlanPod } from '../../../src/sim/kube/controllers/rollout-plan.js';
import { createManualClock } from '../../../src/sim/sim-clock.js';

let stop = () => {};
afterEach(() => stop());

function cluster(random?: () => number) {
  const clock = createManualClock();
  const store = createSimKubeStore({ clusterName: 't', gitVersion: 'v1.30.14-eks-f69f56f', clock, ...(random ? { random } : {}) });
  for (const name of ['n1', 'n2']) {
    store.create('nodes', makeNode({ name, labels: {}, kubeletVersion: 'v1.30.14-eks-f69f56f', instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2', capacity: { cpu: '4', memory: '16Gi', pods: '29' } }));
  }
  stop = startKubeControllers(store, clock);
  return { clock, store };
}

function deployment(name: string, replicas: number): KubeObject {
  return {
    metadata: { name, namespace: 'orders' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: `${name}:1`, resources: { requests: { cpu: '250m', memory: '512Mi' } } }] } },
    },
  };
}

const live = (store: SimKubeStoreImpl, prefix: string) =>
  store.list('pods', 'orders').filter((p) => p.metadata.name.startsWith(prefix) && !p.metadata.deletionTimestamp);

describe('deployment controller', () => {
  it('creates a ReplicaSet and pods named like Kubernetes does, and reports status', async () => {
    const { clock, store } = cluster();
    store.create('deployments', deployment('orders', 2));
    await clock.advance(10_000);
    const [rs] = store.list('replicasets', 'orders');
    expect(rs.metadata.name).toMatch(/^orders-[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    const pods = live(store, 'orders');
    expect(pods.map((p) => p.metadata.name)).toEqual(pods.map(() => expect.stringMatching(new RegExp(`^${rs.metadata.name}-[bcdfghjklmnpqrstvwxz2456789]{5}$`))));
    expect(pods[0].metadata.labels).toMatchObject({ app: 'orders', 'pod-template-hash': rs.metadata.labels!['pod-template-hash'] });
    expect(pods[0].metadata.ownerReferences![0]).toMatchObject({ kind: 'ReplicaSet', name: rs.metadata.name, controller: true });
    expect(store.get('deployments', 'orders', 'orders')!.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2, observedGeneration: 1 });
  });

  it('replaces an evicted pod and scales up and down', async () => {
    const { clock, store } = cluster();
    store.create('deployments', deployment('orders', 2));
    await clock.advance(10_000);
    store.create('poddisruptionbudgets', { metadata: { name: 'orders-pdb', namespace: 'orders' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'orders' } } } });
    const victim = live(store, 'orders')[0].metadata.name;
    expect(store.evict('orders', victim)).toMatchObject({ ok: true, code: 201 });
    await clock.advance(10_000);
    const names = live(store, 'orders').map((p) => p.metadata.name);
    expect(names).toHaveLength(2);
    expect(names).not.toContain(victim);
    store.mutate('deployments', 'orders', 'orders', (d) => (d.spec.replicas = 1));
    await clock.advance(10_000);
    expect(live(store, 'orders')).toHaveLength(1);
  });

  it('rolls out a restart surge-style: the new pod is Ready before the old one goes', async () => {
    const { clock, store } = cluster();
    store.create('deployments', deployment('orders', 1));
    await clock.advance(10_000);
    const old = live(store, 'orders')[0].metadata.name;
    store.mutate('deployments', 'orders', 'orders', (d) => {
      d.spec.template.metadata.annotations = { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:10Z' };
    });
    await clock.advance(0);
    const during = live(store, 'orders');
    expect(during).toHaveLength(2);
    expect(during.map((p) => p.metadata.name)).toContain(old);
    // Never fewer than one ready pod during the rollout.
    for (let t = 0; t < 20; t++) {
      await clock.advance(500);
      const ready = store.list('pods', 'orders').filter((p) => !p.metadata.deletionTimestamp && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      expect(ready.length).toBeGreaterThanOrEqual(1);
    }
    const after = store.list('pods', 'orders');
    expect(after).toHaveLength(1);
    expect(after[0].metadata.name).not.toBe(old);
    expect(store.list('replicasets', 'orders')).toHaveLength(2);
    expect(store.get('deployments', 'orders', 'orders')!.metadata.annotations!['deployment.kubernetes.io/revision']).toBe('2');
  });

  it('recreates pods whose node was deleted, on the remaining node', async () => {
    const { clock, store } = cluster();
    store.create('deployments', deployment('orders', 2));
    await clock.advance(10_000);
    const lost = live(store, 'orders').find((p) => p.spec.nodeName === 'n1') ?? live(store, 'orders')[0];
    store.delete('nodes', lost.spec.nodeName);
    await clock.advance(10_000);
    const pods = live(store, 'orders');
    expect(pods).toHaveLength(2);
    expect(pods.every((p) => p.spec.nodeName !== lost.spec.nodeName && p.status.phase === 'Running')).toBe(true);
  });

  it('deletes replicasets and pods with their deployment (garbage collection)', async () => {
    const { clock, store } = cluster();
    store.create('deployments', deployment('orders', 2));
    await clock.advance(10_000);
    store.delete('deployments', 'orders', 'orders');
    await clock.advance(10_000);
    expect(store.list('replicasets', 'orders')).toEqual([]);
    expect(store.list('pods', 'orders')).toEqual([]);
  });
});

describe('pod names a controller picks', () => {
  it('a name already taken is a FailedCreate and another name; seven taken names give the pod up until the next pass', () => {
    // The next draws are pinned to 0 once a pod named `web-abc-bbbbb` exists, so the first name tried is that one:
    // 1.30's apiserver answers 409 AlreadyExists, and the controller records it and takes another name.
    let pinned = 0;
    const { store } = cluster(() => (pinned-- > 0 ? 0 : Math.random()));
    const pod = (name: string): KubeObject => ({ metadata: { name, namespace: 'orders' }, spec: { containers: [{ name: 'c', image: 'c:1' }] } });
    store.create('pods', pod('web-abc-bbbbb'));
    const failures: string[] = [];
    pinned = 5;
    const name = createNamedPod(store, 'web-abc', pod, (message) => failures.push(message));
    expect(failures).toEqual(['Error creating: pods "web-abc-bbbbb" already exists']);
    expect(name).toMatch(/^web-abc-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(name).not.toBe('web-abc-bbbbb');
    expect(store.get('pods', name!, 'orders')).toBeDefined();

    pinned = 35;
    expect(createNamedPod(store, 'web-abc', pod, (message) => failures.push(message))).toBeUndefined();
    expect(failures).toHaveLength(8);
  });
});

describe('statefulset controller', () => {
  it('creates ordinal pods in order and recreates a deleted one under the same name', async () => {
    const { clock, store } = cluster();
    store.create('statefulsets', {
      metadata: { name: 'orders-mysql', namespace: 'orders' },
      spec: { replicas: 2, serviceName: 'orders-mysql', selector: { matchLabels: { app: 'mysql' } }, template: { metadata: { labels: { app: 'mysql' } }, spec: { containers: [{ name: 'mysql', image: 'mysql:8' }] } } },
    });
    await clock.advance(0);
    expect(store.list('pods', 'orders').map((p) => p.metadata.name)).toEqual(['orders-mysql-0']);
    await clock.advance(10_000);
    expect(store.list('pods', 'orders').map((p) => p.metadata.name)).toEqual(['orders-mysql-0', 'orders-mysql-1']);
    const uid = store.get('pods', 'orders-mysql-0', 'orders')!.metadata.uid;
    store.delete('pods', 'orders-mysql-0', 'orders');
    await clock.advance(10_000);
    const again = store.get('pods', 'orders-mysql-0', 'orders')!;
    expect(again.metadata.uid).not.toBe(uid);
    expect(again.status.phase).toBe('Running');
    expect(store.get('statefulsets', 'orders-mysql', 'orders')!.status).toMatchObject({ replicas: 2, readyReplicas: 2 });
  });
});

describe('disruption controller', () => {
  it('keeps PDB status in step with the pods', async () => {
    const { clock, store } = cluster();
    store.create('deployments', deployment('orders', 1));
    store.create('poddisruptionbudgets', { metadata: { name: 'orders-pdb', namespace: 'orders' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'orders' } } } });
    await clock.advance(10_000);
    expect(store.get('poddisruptionbudgets', 'orders-pdb', 'orders')!.status).toMatchObject({ currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0, expectedPods: 1, observedGeneration: 1 });
    expect(store.evict('orders', live(store, 'orders')[0].metadata.name)).toMatchObject({
      ok: false,
      code: 429,
      disruptionBudget: 'orders/orders-pdb',
      causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget orders-pdb needs 1 healthy pods and has 1 currently' }],
    });
    store.mutate('deployments', 'orders', 'orders', (d) => (d.spec.replicas = 2));
    await clock.advance(10_000);
    expect(store.get('poddisruptionbudgets', 'orders-pdb', 'orders')!.status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
  });
});

describe('daemonset controller', () => {
  it('runs one pod per node, including cordoned ones', async () => {
    const { clock, store } = cluster();
    store.mutate('nodes', 'n2', undefined, (n) => (n.spec.unschedulable = true));
    store.create('daemonsets', { metadata: { name: 'aws-node', namespace: 'kube-system' }, spec: { selector: { matchLabels: { k8s: 'aws-node' } }, template: { metadata: { labels: { k8s: 'aws-node' } }, spec: { containers: [{ name: 'aws-node', image: 'cni:1' }] } } } });
    await clock.advance(10_000);
    const pods = store.list('pods', 'kube-system');
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(['n1', 'n2']);
    expect(store.get('daemonsets', 'aws-node', 'kube-system')!.status).toMatchObject({ desiredNumberScheduled: 2, numberReady: 2 });
  });
});

describe('rolling update arithmetic (25% surge, 25% unavailable)', () => {
  const pods = (prefix: string, n: number, ready = true): PlanPod[] =>
    Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}`, ready, scheduled: true, createdAt: i }));

  it('surges one pod for a single replica and keeps the old one until the new is ready', () => {
    expect(planRollout({ replicas: 1, newPods: [], oldPods: pods('old', 1), oldTerminating: 0 })).toEqual({ create: 1, delete: [] });
    expect(planRollout({ replicas: 1, newPods: pods('new', 1, false), oldPods: pods('old', 1), oldTerminating: 0 })).toEqual({ create: 0, delete: [] });
    expect(planRollout({ replicas: 1, newPods: pods('new', 1), oldPods: pods('old', 1), oldTerminating: 0 })).toEqual({ create: 0, delete: ['old-0'] });
  });

  it('for ten replicas surges up to thirteen pods and never drops below eight available', () => {
    const first = planRollout({ replicas: 10, newPods: [], oldPods: pods('old', 10), oldTerminating: 0 });
    expect(first.create).toBe(3);
    expect(first.delete).toHaveLength(2);
    // Terminating pods no longer count: 3 new + 8 old leaves room for 2 more, but no old pod may go yet.
    expect(planRollout({ replicas: 10, newPods: pods('new', 3, false), oldPods: pods('old', 8), oldTerminating: 2 })).toEqual({ create: 2, delete: [] });
    // Once the five new pods are ready, old ones go down to the availability floor.
    expect(planRollout({ replicas: 10, newPods: pods('new', 5), oldPods: pods('old', 8), oldTerminating: 0 }).delete).toHaveLength(5);
  });

  it('Recreate deletes every old pod before creating new ones', () => {
    const strategy = { type: 'Recreate' };
    expect(planRollout({ replicas: 2, strategy, newPods: [], oldPods: pods('old', 2), oldTerminating: 0 })).toEqual({ create: 0, delete: ['old-0', 'old-1'] });
    expect(planRollout({ replicas: 2, strategy, newPods: [], oldPods: [], oldTerminating: 2 })).toEqual({ create: 0, delete: [] });
    expect(planRollout({ replicas: 2, strategy, newPods: [], oldPods: [], oldTerminating: 0 })).toEqual({ create: 2, delete: [] });
  });

  it('scales down unscheduled and unready pods first', () => {
    const mixed: PlanPod[] = [
      { name: 'running', ready: true, scheduled: true, createdAt: 3 },
      { name: 'pending', ready: false, scheduled: false, createdAt: 1 },
      { name: 'starting', ready: false, scheduled: true, createdAt: 2 },
    ];
    expect(planRollout({ replicas: 1, newPods: mixed, oldPods: [], oldTerminating: 0 }).delete).toEqual(['pending', 'starting']);
  });
});
