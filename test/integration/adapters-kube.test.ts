import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import type { KubeObject, KubePort } from '../../src/ports/kube-port.js';
import { KubeApiError } from '../../src/ports/kube-port.js';
import { closeWatches, startSimulator, type SimKubeStoreImpl, type SimServer } from '@eks-upgrade-bot/sim';
import { until } from '../support/until.js';

/**
 * The Kubernetes adapter through the real @kubernetes/client-node against the simulator's Kubernetes API over
 * HTTP: endpoint from DescribeCluster (real EKS SDK), an EKS token on every request, scenario `demo` (cluster demo
 * at 1.30 with two nodes).
 */
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let sim: SimServer;
let kube: KubePort;
let store: SimKubeStoreImpl;

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1', speed: 60 });
  const eks = createEksPortFactory({ endpoint: sim.url, credentials });
  kube = await createKubePortFactory({ eks, credentials, watchBackoff: { initialMs: 20, maxMs: 200 } })({ name: 'demo', region: 'us-west-2' });
  store = sim.world.kube('demo') as SimKubeStoreImpl;
});
afterAll(async () => {
  await sim?.close();
});

describe('Kubernetes adapter against the simulator', () => {
  it('reads the apiserver version and the two nodes with their kubelet versions', async () => {
    expect(await kube.serverVersion()).toMatch(/^v1\.30\.\d+-eks-[0-9a-f]{7}$/);
    const nodes = await kube.list('nodes');
    expect(nodes.items).toHaveLength(2);
    expect(nodes.resourceVersion).toMatch(/^\d+$/);
    for (const node of nodes.items) {
      expect(node).toMatchObject({ apiVersion: 'v1', kind: 'Node' });
      expect(node.status.nodeInfo.kubeletVersion).toMatch(/^v1\.30\./);
      expect(typeof node.metadata.creationTimestamp).toBe('string'); // plain JSON, not a Date
    }
    const one = nodes.items[0].metadata.name;
    expect((await kube.get('nodes', one))?.metadata.name).toBe(one);
    expect(await kube.get('nodes', 'no-such-node')).toBeUndefined();
  });

  it('filters by label selector', async () => {
    const [node] = (await kube.list('nodes')).items;
    const group = node.metadata.labels?.['eks.amazonaws.com/nodegroup'];
    expect(group).toBeTruthy();
    expect((await kube.list('nodes', { labelSelector: `eks.amazonaws.com/nodegroup=${group}` })).items).toHaveLength(2);
    expect((await kube.list('nodes', { labelSelector: 'eks.amazonaws.com/nodegroup=nope' })).items).toHaveLength(0);
  });

  it('patches a node label with a merge patch, a JSON patch and a strategic merge patch', async () => {
    const name = (await kube.list('nodes')).items[0].metadata.name;
    const merged = await kube.patch('nodes', name, { metadata: { labels: { 'upgrade.example/phase': 'merge' } } }, { type: 'merge' });
    expect(merged.metadata.labels?.['upgrade.example/phase']).toBe('merge');

    const jsonPatched = await kube.patch('nodes', name, [{ op: 'replace', path: '/metadata/labels/upgrade.example~1phase', value: 'json' }], { type: 'json' });
    expect(jsonPatched.metadata.labels?.['upgrade.example/phase']).toBe('json');
    expect(store.get('nodes', name)?.metadata.labels?.['upgrade.example/phase']).toBe('json');

    const cordoned = await kube.patch('nodes', name, { spec: { unschedulable: true } }, { type: 'strategic' });
    expect(cordoned.spec.unschedulable).toBe(true);
    await kube.patch('nodes', name, { spec: { unschedulable: null } }, { type: 'merge' });
  });

  it('reports a JSON patch the apiserver rejects as a KubeApiError naming the operation', async () => {
    const name = (await kube.list('nodes')).items[0].metadata.name;
    const error = await kube
      .patch('nodes', name, [{ op: 'test', path: '/metadata/labels/absent', value: 'x' }], { type: 'json' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error.message).toMatch(new RegExp(`^patching node ${name} in cluster demo failed: (422|409|400) `));
  });

  it('watches nodes: sees a change, survives a 410 Expired by listing again, and keeps watching', async () => {
    const events: string[] = [];
    const syncs: KubeObject[][] = [];
    const errors: Error[] = [];
    const handle = await kube.watch('nodes', {}, {
      onEvent: (type, node) => events.push(`${type} ${node.metadata.name} ${node.metadata.labels?.['watch-test'] ?? '-'}`),
      onSynced: (items) => syncs.push(items),
      onError: (error) => errors.push(error),
    });
    try {
      expect(syncs).toHaveLength(1);
      const [first, second] = syncs[0].map((node) => node.metadata.name);

      store.mutate('nodes', first, undefined, (node) => void (node.metadata.labels!['watch-test'] = 'one'));
      await until(() => events.includes(`MODIFIED ${first} one`), () => `the MODIFIED event; events: ${JSON.stringify(events)}`);

      // Etcd compaction while the client is disconnected: its resourceVersion is gone, the change made meanwhile
      // can only be learnt by listing again.
      closeWatches(store);
      store.mutate('nodes', second, undefined, (node) => void (node.metadata.labels!['watch-test'] = 'while-away'));
      store.compactHistory();
      const relisted = (await until(() => syncs.length === 2 && syncs, () => `the relist after 410; lists: ${syncs.length}`))[1];
      expect(relisted.find((node) => node.metadata.name === second)?.metadata.labels?.['watch-test']).toBe('while-away');

      store.mutate('nodes', first, undefined, (node) => void (node.metadata.labels!['watch-test'] = 'after'));
      await until(() => events.includes(`MODIFIED ${first} after`), () => `an event after the relist; events: ${JSON.stringify(events)}`);
      expect(errors).toEqual([]);
    } finally {
      handle.stop();
    }
    const seen = events.length;
    // A second watch, still open, sees the next change: by then the stopped one would have seen it too.
    const witnessed: string[] = [];
    const witness = await kube.watch('nodes', {}, { onEvent: (type, node) => witnessed.push(`${type} ${node.metadata.labels?.['watch-test'] ?? '-'}`) });
    try {
      store.mutate('nodes', (await kube.list('nodes')).items[0].metadata.name, undefined, (node) => void (node.metadata.labels!['watch-test'] = 'stopped'));
      await until(() => witnessed.includes('MODIFIED stopped'), () => `the change on the open watch; it saw: ${JSON.stringify(witnessed)}`);
    } finally {
      witness.stop();
    }
    expect(events).toHaveLength(seen);
  });

  it('reads a large list in 500-item pages, but starts a watch from one list the watch cache answers whole', async () => {
    for (let i = 0; i < 620; i++) {
      store.create('secrets', { metadata: { name: `bulk-${String(i).padStart(3, '0')}`, namespace: 'default' }, data: {} });
    }
    const requests = async () => ((await (await fetch(`${sim.url}/_sim/requests`)).json()) as { kube: Record<string, number> }).kube;
    await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
    const listed = await kube.list('secrets', { namespace: 'default' });
    expect(listed.items.filter((c) => c.metadata.name.startsWith('bulk-'))).toHaveLength(620);
    expect((await requests())['list secrets']).toBe(2);
    let synced: KubeObject[] = [];
    const handle = await kube.watch('secrets', { namespace: 'default' }, { onEvent: () => undefined, onSynced: (items) => (synced = items) });
    handle.stop();
    expect(synced.filter((c) => c.metadata.name.startsWith('bulk-'))).toHaveLength(620);
    expect((await requests())['list secrets']).toBe(3);
  });

  it('evicts a pod, and gets 429 when a PodDisruptionBudget forbids it', async () => {
    const node = (await kube.list('nodes')).items[0].metadata.name;
    const pod = (name: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'shop', labels: { app: 'adapter-test' } },
      spec: { nodeName: node, containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    store.create('pods', pod('guarded-0'));
    store.create('poddisruptionbudgets', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'guarded', namespace: 'shop' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'adapter-test' } } },
    });

    const refused = await kube.evictPod('shop', 'guarded-0').catch((e) => e);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect(refused.code).toBe(429);
    expect(refused.reason).toBe('TooManyRequests');
    expect(refused.message).toMatch(/^evicting pod shop\/guarded-0 in cluster demo failed: 429 Too Many Requests: Cannot evict pod as it would violate the pod's disruption budget/);
    expect(store.get('pods', 'guarded-0', 'shop')).toBeDefined();

    store.create('pods', { ...pod('free-0'), metadata: { name: 'free-0', namespace: 'shop', labels: { app: 'unguarded' } } });
    await kube.evictPod('shop', 'free-0');
    const gone = store.get('pods', 'free-0', 'shop');
    expect(gone === undefined || gone.metadata.deletionTimestamp !== undefined).toBe(true);
  });

  it('deletes a pod a PodDisruptionBudget protects (what Force does), and treats an already-gone pod as deleted', async () => {
    const node = (await kube.list('nodes')).items[0].metadata.name;
    store.create('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'forced-0', namespace: 'shop', labels: { app: 'force-test' } },
      spec: { nodeName: node, containers: [{ name: 'app', image: 'public.ecr.aws/nginx/nginx:1.27' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    store.create('poddisruptionbudgets', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'force-test', namespace: 'shop' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'force-test' } } },
    });
    expect((await kube.evictPod('shop', 'forced-0').catch((e) => e)).code).toBe(429);

    await kube.deletePod('shop', 'forced-0');
    const gone = store.get('pods', 'forced-0', 'shop');
    expect(gone === undefined || gone.metadata.deletionTimestamp !== undefined).toBe(true);
    await expect(kube.deletePod('shop', 'never-existed')).resolves.toBeUndefined();
  });
});
