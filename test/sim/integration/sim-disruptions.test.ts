import { EKSClient, UpdateClusterVersionCommand } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '@eks-upgrade-bot/sim';
import { simClientConfig, simControl, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * GET /_sim/disruptions: the disruptive calls a client made, in simulated time, so an upgrade test can assert that the
 * bot started none after a guard breached (issue 29).
 */
describe('GET /_sim/disruptions', () => {
  const start = useSim();

  it("lists a caller's evictions, deletions and disruptive AWS calls in simulated time, from `since` on", async () => {
    const clock = createManualClock(Date.UTC(2026, 0, 1, 12, 0));
    const sim = await start('demo', { clock });
    await clock.advance(10_000);
    const kube = (path: string, init: RequestInit = {}) => fetch(`${sim.url}/k8s/demo${path}`, { ...init, headers: { authorization: 'Bearer sim', 'content-type': 'application/json' } }).then((r) => r.json() as Promise<any>);
    const [first, second] = (await kube('/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb')).items.map((p: any) => p.metadata.name);
    await kube(`/api/v1/namespaces/shop/pods/${first}/eviction`, { method: 'POST', body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: first, namespace: 'shop' } }) });
    await clock.advance(60_000);
    const breach = clock.now();
    await kube(`/api/v1/namespaces/shop/pods/${second}`, { method: 'DELETE' });
    await clock.advance(1000);
    await new EKSClient(simClientConfig(sim)).send(new UpdateClusterVersionCommand({ name: 'demo', version: '1.31' }));
    // Reads and cordons are not disruptions.
    await kube('/api/v1/nodes');

    const all = (await simControl(sim, 'GET', 'disruptions')).disruptions;
    expect(all.map((d: any) => d.kind)).toEqual(['eviction', 'pod-delete', 'eks UpdateClusterVersion']);
    expect(all[0]).toEqual({ at: '2026-01-01T12:00:10.000Z', cluster: 'demo', kind: 'eviction', target: `shop/${first}` });
    const after = (await simControl(sim, 'GET', `disruptions?since=${new Date(breach).toISOString()}`)).disruptions;
    expect(after).toEqual([
      { at: '2026-01-01T12:01:10.000Z', cluster: 'demo', kind: 'pod-delete', target: `shop/${second}` },
      { at: '2026-01-01T12:01:11.000Z', cluster: 'demo', kind: 'eks UpdateClusterVersion', target: '1.31' },
    ]);
    const bad = await fetch(`${sim.url}/_sim/disruptions?since=yesterday`);
    expect([bad.status, ((await bad.json()) as any).message]).toEqual([400, 'since must be a simulated time, ISO (2026-01-01T12:00:00Z) or epoch milliseconds, got "yesterday".']);
  });
});
