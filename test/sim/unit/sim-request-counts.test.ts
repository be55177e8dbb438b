import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeRequestKey } from '../../../src/sim/request-counts.js';
import { startSimulator, type SimServer } from '../../../src/sim/sim-server.js';

describe('kubeRequestKey', () => {
  it('names the verb and resource of a Kubernetes request as the API economy benchmark counts them', () => {
    expect(kubeRequestKey('GET', '/api/v1/nodes?limit=500')).toBe('list nodes');
    expect(kubeRequestKey('GET', '/api/v1/nodes?watch=true&resourceVersion=7')).toBe('watch nodes');
    expect(kubeRequestKey('GET', '/api/v1/watch/namespaces/orders/pods')).toBe('watch pods');
    expect(kubeRequestKey('GET', '/apis/karpenter.sh/v1/nodeclaims/default-x7k2p')).toBe('get nodeclaims');
    expect(kubeRequestKey('POST', '/api/v1/namespaces/orders/pods/p/eviction')).toBe('create pods/eviction');
    expect(kubeRequestKey('PATCH', '/apis/karpenter.sh/v1/nodepools/default')).toBe('patch nodepools');
    expect(kubeRequestKey('GET', '/api/v1/namespaces/orders')).toBe('get namespaces');
  });
});

describe('GET /_sim/requests and --latency-ms', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'demo', port: 0, speed: 60, faults: { latencyMs: 150 } });
  });
  afterAll(async () => sim?.close());

  it('counts AWS operations and Kubernetes verbs per kind, and holds Kubernetes answers by the injected latency too', async () => {
    const started = performance.now();
    const nodes = await fetch(`${sim.url}/k8s/demo/api/v1/nodes`, { headers: { authorization: 'Bearer sim' } });
    expect(nodes.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    await fetch(`${sim.url}/clusters/demo`);
    const counts = await (await fetch(`${sim.url}/_sim/requests`)).json();
    expect(counts.kube).toEqual({ 'list nodes': 1 });
    expect(counts.aws).toEqual({ 'eks DescribeCluster': 1 });
    expect((await (await fetch(`${sim.url}/_sim/requests?cluster=demo`)).json()).kube).toEqual({ 'list nodes': 1 });
    await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
    expect(sim.requests.counts()).toEqual({ aws: {}, kube: {} });
  });
});
