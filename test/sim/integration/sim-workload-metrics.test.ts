import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { SimServer } from '@eks-upgrade-bot/sim';
import { simControl, useSim } from '@eks-upgrade-bot/sim/kit';
import { until } from '../../support/until.js';

/**
 * GET /_sim/metrics (kube-state-metrics' names, Prometheus text format) and POST/DELETE /_sim/workloads/fail: a
 * Deployment whose pods fail readiness on a kubelet version, with what follows from it — available replicas, the
 * Service's availability, the PDB's disruptionsAllowed.
 */
const demoWithService = () => {
  const scenario = parseYaml(readFileSync(new URL('../../../src/sim/scenarios/demo.yaml', import.meta.url), 'utf8'));
  scenario.clusters[0].kubernetes.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'shop' }, spec: { selector: { app: 'api' }, ports: [{ port: 80 }] } });
  return scenario;
};

async function scrape(sim: SimServer): Promise<{ contentType: string | null; text: string; value(name: string, labels: Record<string, string>): number | undefined }> {
  const res = await fetch(`${sim.url}/_sim/metrics`);
  const text = await res.text();
  return {
    contentType: res.headers.get('content-type'),
    text,
    value(name, labels) {
      const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)));
      return line === undefined ? undefined : Number(line.split(' ').pop());
    },
  };
}

const pdb = async (sim: SimServer, name: string) => (await simControl(sim, 'GET', 'state')).clusters[0].pdbs.find((p: any) => p.name === name);

describe('the simulated workloads as Prometheus metrics, and a workload that fails on a kubelet version', () => {
  const start = useSim();

  it('serves kube-state-metrics series per cluster in text format 0.0.4, following the pods', async () => {
    const sim = await start(demoWithService());
    const api = { cluster: 'demo', namespace: 'shop', deployment: 'api' };
    const m = await until(async () => {
      const s = await scrape(sim);
      return s.value('kube_deployment_status_replicas_available', api) === 2 && s;
    }, 'both api replicas to be available');
    expect(m.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(m.text.endsWith('\n')).toBe(true);
    for (const family of ['kube_deployment_spec_replicas', 'kube_deployment_status_replicas_available', 'kube_pod_status_ready', 'sim_service_available']) {
      expect(m.text).toContain(`# HELP ${family} `);
      expect(m.text).toContain(`# TYPE ${family} gauge\n`);
    }
    expect(m.value('kube_deployment_spec_replicas', { ...api })).toBe(2);
    expect(m.value('kube_deployment_spec_replicas', { cluster: 'demo', namespace: 'shop', deployment: 'web' })).toBe(3);
    expect(m.value('sim_service_available', { cluster: 'demo', namespace: 'shop', service: 'api' })).toBe(1);
    // One series per condition value, as kube-state-metrics writes them: 1 for the pod's own, 0 for the others.
    const pod = /kube_pod_status_ready\{cluster="demo",namespace="shop",pod="(api-[^"]+)"/.exec(m.text)![1];
    expect(m.value('kube_pod_status_ready', { pod, condition: 'true' })).toBe(1);
    expect(m.value('kube_pod_status_ready', { pod, condition: 'false' })).toBe(0);
    expect(m.value('kube_pod_status_ready', { pod, condition: 'unknown' })).toBe(0);
  });

  it('fails the pods on nodes of that kubelet minor, new pods there included, until cleared', async () => {
    const sim = await start(demoWithService());
    const api = { cluster: 'demo', namespace: 'shop', deployment: 'api' };
    await until(async () => (await scrape(sim)).value('kube_deployment_status_replicas_available', api) === 2, 'both api replicas to be available');
    expect((await pdb(sim, 'api-pdb')).disruptionsAllowed).toBe(1);

    // The demo's nodes run kubelet 1.30: the api breaks on them.
    const set = await simControl(sim, 'POST', 'workloads/fail', { namespace: 'shop', name: 'api', onVersion: '1.30' });
    expect(set).toEqual({ cluster: 'demo', namespace: 'shop', name: 'api', failsReadinessOn: '1.30' });
    await until(async () => {
      const s = await scrape(sim);
      return s.value('kube_deployment_status_replicas_available', api) === 0 && s.value('sim_service_available', { service: 'api' }) === 0;
    }, 'the api to have no available replica and its Service no ready endpoint');
    expect((await scrape(sim)).value('kube_deployment_status_replicas_available', { deployment: 'web' })).toBe(3);
    await until(async () => (await pdb(sim, 'api-pdb')).disruptionsAllowed === 0, 'api-pdb to allow no disruption');

    // A replacement pod scheduled onto a 1.30 node runs, with its readiness probe failing.
    const kube = (path: string, init?: RequestInit) => fetch(`${sim.url}/k8s/demo${path}`, { headers: { authorization: 'Bearer sim' }, ...init }).then((r) => r.json() as Promise<any>);
    const before = (await kube('/api/v1/namespaces/shop/pods?labelSelector=app%3Dapi')).items;
    await kube(`/api/v1/namespaces/shop/pods/${before[0].metadata.name}`, { method: 'DELETE' });
    const replacement = await until(async () => {
      const items = (await kube('/api/v1/namespaces/shop/pods?labelSelector=app%3Dapi')).items as any[];
      return items.find((p) => !before.some((b: any) => b.metadata.name === p.metadata.name) && p.status.phase === 'Running');
    }, 'a replacement api pod to be running');
    const ready = replacement.status.conditions.find((c: any) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });

    await simControl(sim, 'DELETE', 'workloads/fail', { namespace: 'shop', name: 'api' });
    await until(async () => {
      const s = await scrape(sim);
      return s.value('kube_deployment_status_replicas_available', api) === 2 && s.value('sim_service_available', { service: 'api' }) === 1;
    }, 'the api to be available again once the fault is cleared');
  });

  it.each([
    ['karpenter-lab', 'eksworkshop-eksctl', 'checkout', 'checkout'],
    ['self-managed-refresh', undefined, 'batch', 'trainer'],
  ])('fails pods on %s nodes too (Karpenter, self-managed)', async (scenario, cluster, namespace, name) => {
    const sim = await start(scenario);
    const labels = { namespace, deployment: name };
    const replicas = await until(async () => {
      const s = await scrape(sim);
      const want = s.value('kube_deployment_spec_replicas', labels);
      return want !== undefined && s.value('kube_deployment_status_replicas_available', labels) === want && want;
    }, `${namespace}/${name} to be fully available`);
    expect(replicas).toBeGreaterThan(0);
    const minor = (await simControl(sim, 'GET', 'state')).clusters[0].nodes[0].kubeletVersion.replace(/^v(\d+\.\d+).*/, '$1');
    await simControl(sim, 'POST', 'workloads/fail', { ...(cluster ? { cluster } : {}), namespace, name, onVersion: minor });
    await until(async () => (await scrape(sim)).value('kube_deployment_status_replicas_available', labels) === 0, `${namespace}/${name} to have no available replica on kubelet ${minor}`);
  });

  it('refuses a bad workload fault with a sentence naming what is wrong', async () => {
    const sim = await start(demoWithService());
    const post = async (body: unknown) => {
      const res = await fetch(`${sim.url}/_sim/workloads/fail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, message: ((await res.json()) as any).message as string };
    };
    expect(await post({ namespace: 'shop', name: 'api' })).toEqual({ status: 400, message: expect.stringContaining('"onVersion" must be the Kubernetes minor the pods fail on, like "1.31", got undefined') });
    expect(await post({ namespace: 'shop', name: 'api', onVersion: 'v1.31' })).toMatchObject({ status: 400, message: expect.stringContaining('got "v1.31"') });
    expect(await post({ name: 'api', onVersion: '1.31' })).toMatchObject({ status: 400, message: expect.stringContaining('needs "namespace"') });
    expect(await post({ namespace: 'shop', name: 'nope', onVersion: '1.31' })).toEqual({ status: 404, message: 'No Deployment shop/nope in cluster demo; shop has api, web.' });
    expect(await post({ cluster: 'other', namespace: 'shop', name: 'api', onVersion: '1.31' })).toEqual({ status: 404, message: 'No cluster other in this scenario; it has demo.' });
  });

  it('asks which cluster when the scenario has several', async () => {
    const sim = await start('fleet', { clusters: 2 });
    const res = await fetch(`${sim.url}/_sim/workloads/fail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ namespace: 'shop', name: 'api', onVersion: '1.31' }) });
    expect(res.status).toBe(400);
    const names = [...sim.world.clusters.keys()];
    expect(((await res.json()) as any).message).toBe(`This scenario has 2 clusters (${names.join(', ')}); say which with "cluster".`);
  });
});
