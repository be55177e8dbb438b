import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimServer } from '../../../src/sim/sim-server.js';

/**
 * The control API's record of when things happened: GET /_sim/timeline (NodeClaim deletions and Events with their
 * wall-clock time, which P4 joins to Slack's receipts) and the start and end of each AWS update in GET /_sim/state
 * (which P6 sums as the unavoidable waits).
 */
const auth = { authorization: 'Bearer sim', 'content-type': 'application/json' };
let sim: SimServer | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

// The simulator package may not import the bot's test kit (.dependency-cruiser.cjs), so it keeps its own wait.
async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('GET /_sim/timeline', () => {
  it('lists a deleted NodeClaim and a new Event with the wall-clock time they happened, filtered by kind and reason', async () => {
    sim = await startSimulator({ scenario: 'karpenter-lab', port: 0, speed: 600 });
    const base = `${sim.url}/k8s/eksworkshop-eksctl`;
    const claims = (await (await fetch(`${base}/apis/karpenter.sh/v1/nodeclaims`, { headers: auth })).json()) as { items: Array<{ metadata: { name: string } }> };
    const claim = claims.items[0].metadata.name;
    const before = Date.now();
    expect((await fetch(`${base}/apis/karpenter.sh/v1/nodeclaims/${claim}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    const deleted = await until(async () => {
      const { events } = (await (await fetch(`${sim!.url}/_sim/timeline?kind=nodeclaim-deleted`)).json()) as { events: Array<{ object: string; at: number; cluster: string }> };
      return events.find((e) => e.object === claim);
    }, `NodeClaim ${claim} to be deleted`);
    expect(deleted.cluster).toBe('eksworkshop-eksctl');
    expect(deleted.at).toBeGreaterThanOrEqual(before);
    expect(deleted.at).toBeLessThanOrEqual(Date.now());

    const event = { metadata: { name: 'checkout.1' }, involvedObject: { kind: 'Node', name: 'ip-10-0-1-1' }, reason: 'DisruptionBlocked', message: 'Cannot disrupt Node', type: 'Normal' };
    expect((await fetch(`${base}/api/v1/namespaces/default/events`, { method: 'POST', headers: auth, body: JSON.stringify(event) })).status).toBe(201);
    const { events } = (await (await fetch(`${sim.url}/_sim/timeline?reason=DisruptionBlocked`)).json()) as { events: Array<Record<string, unknown>> };
    expect(events).toEqual([expect.objectContaining({ kind: 'event', object: 'Node/ip-10-0-1-1', reason: 'DisruptionBlocked', message: 'Cannot disrupt Node' })]);

    await fetch(`${sim.url}/_sim/timeline`, { method: 'DELETE' });
    // Cleared: what the controllers record from now on starts a new timeline.
    expect(await (await fetch(`${sim.url}/_sim/timeline?reason=DisruptionBlocked`)).json()).toEqual({ events: [] });
  });
});

describe('GET /_sim/state updates', () => {
  it('say when each AWS update started and ended in simulated time', async () => {
    sim = await startSimulator({ scenario: 'demo', port: 0, speed: 3000 });
    const started = await fetch(`${sim.url}/clusters/demo/updates`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ version: '1.31' }) });
    expect(started.status).toBe(200);
    const { update, now } = await until(async () => {
      const state = (await (await fetch(`${sim!.url}/_sim/state`)).json()) as { now: string; clusters: Array<{ updates: Array<{ status: string; createdAt: string; endedAt?: string }> }> };
      const ended = state.clusters[0].updates.find((u) => u.status === 'Successful');
      return ended && { update: ended, now: Date.parse(state.now) };
    }, 'the control-plane update to end');
    // demo.yaml: a control-plane update takes 10 simulated minutes. Its end is recorded when the simulator's
    // controller sees it, which a busy machine delays by wall milliseconds (a simulated minute is 20 ms at speed
    // 3000): so the end is bounded by the simulated time of the read that saw it, not by a fixed margin.
    expect(Date.parse(update.endedAt!) - Date.parse(update.createdAt)).toBeGreaterThanOrEqual(10 * 60_000);
    expect(Date.parse(update.endedAt!)).toBeLessThanOrEqual(now);
  });
});
