import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeWatches, createSimClock, createSimKubeStore, makeNode, type SimClock, type SimKubeStoreImpl, type StandaloneKubeServer, startKubeControllers, startStandaloneKubeServer } from '@eks-upgrade-bot/sim';
import { until } from '../../support/until.js';

/**
 * The real @kubernetes/client-node 1.4 against the simulated apiserver over HTTP: typed and custom-object calls,
 * errors as ApiException with the Status body, eviction answers, and an informer that survives a 410.
 */
let clock: SimClock;
let store: SimKubeStoreImpl;
let server: StandaloneKubeServer;
let stopControllers: () => void;
let kc: k8s.KubeConfig;

function node(name: string, labels: Record<string, string> = {}) {
  return makeNode({ name, labels, kubeletVersion: 'v1.30.14-eks-f69f56f', instanceType: 'm5.large', zone: 'us-west-2a', region: 'us-west-2', capacity: { cpu: '4', memory: '16Gi', pods: '29' } });
}

beforeEach(async () => {
  clock = createSimClock(50);
  store = createSimKubeStore({ clusterName: 'test', gitVersion: 'v1.30.14-eks-f69f56f', clock });
  store.create('nodes', node('ip-10-0-1-1.us-west-2.compute.internal', { 'eks.amazonaws.com/nodegroup': 'initial' }));
  store.create('nodes', node('ip-10-0-2-2.us-west-2.compute.internal', { 'karpenter.sh/nodepool': 'default' }));
  stopControllers = startKubeControllers(store, clock);
  server = await startStandaloneKubeServer({ store });
  kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'test', server: server.url, skipTLSVerify: true }],
    users: [{ name: 'bot' }],
    contexts: [{ name: 'test', cluster: 'test', user: 'bot' }],
    currentContext: 'test',
  });
  // As the bot does: an authenticator that puts an EKS token on every request.
  kc.addAuthenticator({
    isAuthProvider: () => true,
    applyAuthentication: async (_user: unknown, opts: any) => {
      opts.headers = { ...(opts.headers ?? {}), Authorization: 'Bearer k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbQ' };
    },
  } as any);
});

afterEach(async () => {
  stopControllers();
  await server.close();
});

describe('client-node against the simulated apiserver', () => {
  it('reads the version, lists nodes with a label selector and reads one node', async () => {
    const version = await kc.makeApiClient(k8s.VersionApi).getCode();
    expect(version).toMatchObject({ major: '1', minor: '30+', gitVersion: 'v1.30.14-eks-f69f56f' });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const all = await core.listNode();
    expect(all.items.map((n) => n.metadata?.name)).toHaveLength(2);
    expect(Number(all.metadata?.resourceVersion)).toBeGreaterThan(0);
    const karpenter = await core.listNode({ labelSelector: 'karpenter.sh/nodepool' });
    expect(karpenter.items.map((n) => n.metadata?.name)).toEqual(['ip-10-0-2-2.us-west-2.compute.internal']);
    const one = await core.readNode({ name: 'ip-10-0-1-1.us-west-2.compute.internal' });
    expect(one.status?.nodeInfo?.kubeletVersion).toBe('v1.30.14-eks-f69f56f');
  });

  it('answers a missing object with ApiException 404 carrying the Status', async () => {
    const error = await kc.makeApiClient(k8s.CoreV1Api).readNode({ name: 'nope' }).catch((e) => e);
    expect(error).toBeInstanceOf(k8s.ApiException);
    expect(error.code).toBe(404);
    expect(JSON.parse(error.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'nodes "nope" not found', code: 404 });
  });

  it('patches nodes (cordon) and Karpenter objects with merge and JSON patches', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.patchNode(
      { name: 'ip-10-0-1-1.us-west-2.compute.internal', body: { spec: { unschedulable: true } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    expect(store.get('nodes', 'ip-10-0-1-1.us-west-2.compute.internal')!.spec.unschedulable).toBe(true);

    store.create('nodepools', { metadata: { name: 'default' }, spec: { disruption: { budgets: [{ nodes: '10%' }], consolidationPolicy: 'WhenEmpty' } } });
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    await custom.patchClusterCustomObject(
      { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'default', body: { spec: { disruption: { budgets: [{ nodes: '1' }] } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await custom.patchClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'default', body: [{ op: 'add', path: '/metadata/labels', value: { team: 'checkout' } }] });
    const pools: any = await custom.listClusterCustomObject({ group: 'karpenter.sh', version: 'v1', plural: 'nodepools', labelSelector: 'team=checkout' });
    expect(pools.items).toHaveLength(1);
    expect(pools.items[0].spec.disruption).toEqual({ budgets: [{ nodes: '1' }], consolidationPolicy: 'WhenEmpty' });

    const invalid = await custom
      .patchClusterCustomObject(
        { group: 'karpenter.sh', version: 'v1', plural: 'nodepools', name: 'default', body: { spec: { disruption: { budgets: [{ nodes: 'one' }] } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )
      .catch((e) => e);
    expect(invalid.code).toBe(422);
    expect(JSON.parse(invalid.body).message).toContain('spec.disruption.budgets[0].nodes');
  });

  it('evicts through the eviction subresource with Kubernetes answers: 429 under a PDB, 201 once scaled', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'orders' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'orders' } }, template: { metadata: { labels: { app: 'orders' } }, spec: { containers: [{ name: 'orders', image: 'orders:1' }] } } },
      },
    });
    await kc.makeApiClient(k8s.PolicyV1Api).createNamespacedPodDisruptionBudget({ namespace: 'default', body: { metadata: { name: 'orders-pdb' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'orders' } } } } });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const pod = await until(async () => (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=orders', fieldSelector: 'status.phase=Running' })).items[0], 'orders running');
    const evict = () => core.createNamespacedPodEviction({ name: pod.metadata!.name!, namespace: 'default', body: { metadata: { name: pod.metadata!.name!, namespace: 'default' } } });

    const refused = await evict().catch((e) => e);
    expect(refused.code).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget orders-pdb needs 1 healthy pods and has 1 currently' }] },
      code: 429,
    });

    await apps.patchNamespacedDeploymentScale({ name: 'orders', namespace: 'default', body: { spec: { replicas: 2 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    await until(async () => (await kc.makeApiClient(k8s.PolicyV1Api).readNamespacedPodDisruptionBudget({ name: 'orders-pdb', namespace: 'default' })).status?.disruptionsAllowed === 1, 'two healthy');
    // 201 with a Status body (client-node reads it into a V1Eviction, keeping only kind and apiVersion).
    const granted = await evict();
    expect(granted).toMatchObject({ kind: 'Status', apiVersion: 'v1' });
    await until(async () => (await core.readNamespacedPod({ name: pod.metadata!.name!, namespace: 'default' }).catch((e) => e)).code === 404, 'evicted pod gone');
  });

  it('keeps an informer in sync across a 410 Expired', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/nodes', () => core.listNode());
    const added: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (n) => added.push(n.metadata!.name!));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await until(() => added.length === 2, 'initial list');

    store.create('nodes', node('ip-10-0-3-3.us-west-2.compute.internal'));
    await until(() => added.includes('ip-10-0-3-3.us-west-2.compute.internal'), 'watched add');

    // Drop the stream, change the world and compact history in one go: the informer's resourceVersion is now
    // older than the history, so its re-watch gets 410 Expired and it has to list again.
    closeWatches(store);
    store.create('nodes', node('ip-10-0-4-4.us-west-2.compute.internal'));
    store.delete('nodes', 'ip-10-0-1-1.us-west-2.compute.internal');
    store.compactHistory();
    await until(() => added.includes('ip-10-0-4-4.us-west-2.compute.internal'), 'relisted after 410');
    await until(() => !informer.list().some((n) => n.metadata?.name === 'ip-10-0-1-1.us-west-2.compute.internal'), 'deletion noticed');

    store.create('nodes', node('ip-10-0-5-5.us-west-2.compute.internal'));
    await until(() => added.includes('ip-10-0-5-5.us-west-2.compute.internal'), 'watching again');
    expect(errors).toEqual([]);
    expect(informer.list().map((n) => n.metadata!.name).sort()).toEqual([
      'ip-10-0-2-2.us-west-2.compute.internal',
      'ip-10-0-3-3.us-west-2.compute.internal',
      'ip-10-0-4-4.us-west-2.compute.internal',
      'ip-10-0-5-5.us-west-2.compute.internal',
    ]);
    await informer.stop();
  });

  it('streams watch events with bookmarks and a server-side timeout', async () => {
    const events: Array<{ type: string; name?: string; rv?: string }> = [];
    let ended = false;
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(
      '/api/v1/nodes',
      { resourceVersion: store.resourceVersion(), allowWatchBookmarks: true, timeoutSeconds: 2, labelSelector: 'eks.amazonaws.com/nodegroup' },
      (type, obj) => events.push(type === 'BOOKMARK' ? { type, rv: obj.metadata.resourceVersion } : { type, name: obj?.metadata?.name }),
      () => (ended = true),
    );
    store.mutate('nodes', 'ip-10-0-2-2.us-west-2.compute.internal', undefined, (n) => (n.metadata.labels!['x'] = 'y')); // not selected
    store.mutate('nodes', 'ip-10-0-1-1.us-west-2.compute.internal', undefined, (n) => (n.spec.unschedulable = true));
    store.mutate('nodes', 'ip-10-0-1-1.us-west-2.compute.internal', undefined, (n) => delete n.metadata.labels!['eks.amazonaws.com/nodegroup']);
    await until(() => ended, 'stream ended by timeoutSeconds');
    expect(events.filter((e) => e.type !== 'BOOKMARK')).toEqual([
      { type: 'MODIFIED', name: 'ip-10-0-1-1.us-west-2.compute.internal' },
      { type: 'DELETED', name: 'ip-10-0-1-1.us-west-2.compute.internal' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'BOOKMARK', rv: store.resourceVersion() });
    req.abort();
  });
});
