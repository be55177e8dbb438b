import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '@eks-upgrade-bot/sim';
import { useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * The simulator controls the playground's side panel uses: the speed of the simulated clock, changed while it
 * runs, and a PodDisruptionBudget made to allow no disruption (a "stuck PDB") and put back, seen by a real
 * Kubernetes client as refused evictions.
 */
const startSim = useSim();

async function control(url: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/_sim/${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

describe('POST /_sim/speed', () => {
  it('changes the speed from now on: time stays continuous and a pending timer fires at the new pace', async () => {
    const sim = await startSim('demo', { speed: 1 });
    const before = Date.parse((await control(sim.url, 'state')).body.now);
    // Ten simulated minutes at 1× would take ten real minutes; at 6000× they take a tenth of a second.
    const fired = new Promise<number>((resolve) => sim.clock.after(10 * 60_000, () => resolve(sim.clock.now())));
    const changed = await control(sim.url, 'speed', { speed: 6000 });
    expect(changed.status).toBe(200);
    expect(changed.body.speed).toBe(6000);
    expect(Date.parse(changed.body.now)).toBeGreaterThanOrEqual(before);
    expect(await fired).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect((await control(sim.url, 'state')).body).toMatchObject({ speed: 6000, canChangeSpeed: true });
  });

  it('refuses a speed that is not a positive number, and any change of a manual clock, saying why', async () => {
    const sim = await startSim('demo', { speed: 60 });
    expect(await control(sim.url, 'speed', { speed: 0 })).toEqual({
      status: 400,
      body: { message: 'speed needs {"speed": <simulated seconds per real second, above 0 and at most 10000>}, got 0' },
    });
    expect((await control(sim.url, 'state')).body.speed).toBe(60);
    const manual = await startSim('demo', { clock: createManualClock() });
    expect(await control(manual.url, 'speed', { speed: 10 })).toEqual({
      status: 400,
      body: { message: 'This simulator runs on a manual clock; its speed cannot change (use POST /_sim/advance).' },
    });
  });
});

describe('POST /_sim/clusters/<name>/pdbs/<namespace>/<pdb>', () => {
  it('makes a PDB stuck (evictions refused, its pods listed as blocked) and puts it back', async () => {
    const sim = await startSim('demo');
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'demo', server: `${sim.url}/k8s/demo`, skipTLSVerify: true }],
      users: [{ name: 'sim', token: 'sim' }],
      contexts: [{ name: 'demo', cluster: 'demo', user: 'sim' }],
      currentContext: 'demo',
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const pdbs = kc.makeApiClient(k8s.PolicyV1Api);
    const pdbState = async () => (await control(sim.url, 'state')).body.clusters[0].pdbs.find((p: { name: string }) => p.name === 'api-pdb');
    await expect.poll(async () => (await pdbState()).disruptionsAllowed).toBe(1);

    const stuck = await control(sim.url, 'clusters/demo/pdbs/shop/api-pdb', { stuck: true });
    expect(stuck).toEqual({ status: 200, body: { namespace: 'shop', name: 'api-pdb', stuck: true, minAvailable: '100%' } });
    await expect.poll(async () => (await pdbState()).disruptionsAllowed).toBe(0);
    const pods = (await core.listNamespacedPod({ namespace: 'shop', labelSelector: 'app=api' })).items;
    expect((await pdbState()).blockedPods.map((p: { name: string }) => p.name).sort()).toEqual(pods.map((p) => p.metadata!.name).sort());
    const name = pods[0].metadata!.name!;
    const refused = await core.createNamespacedPodEviction({ name, namespace: 'shop', body: { metadata: { name, namespace: 'shop' } } }).catch((e) => e);
    expect(refused.code).toBe(429);
    expect(JSON.parse(refused.body).message).toBe("Cannot evict pod as it would violate the pod's disruption budget.");

    expect((await control(sim.url, 'clusters/demo/pdbs/shop/api-pdb', { stuck: false })).body).toMatchObject({ stuck: false, minAvailable: 1 });
    const restored = await pdbs.readNamespacedPodDisruptionBudget({ name: 'api-pdb', namespace: 'shop' });
    expect(restored.spec).toMatchObject({ minAvailable: 1 });
    expect(restored.metadata?.annotations ?? {}).toEqual({});
    await expect.poll(async () => (await pdbState()).disruptionsAllowed).toBe(1);
  });

  it('names what is missing: an unknown PDB or cluster, or no stuck flag', async () => {
    const sim = await startSim('demo');
    expect(await control(sim.url, 'clusters/demo/pdbs/shop/nope', { stuck: true })).toEqual({
      status: 404, body: { message: 'No PodDisruptionBudget shop/nope in cluster demo.' },
    });
    expect(await control(sim.url, 'clusters/prod/pdbs/shop/api-pdb', { stuck: true })).toEqual({
      status: 404, body: { message: 'No cluster prod in this scenario.' },
    });
    expect(await control(sim.url, 'clusters/demo/pdbs/shop/api-pdb', {})).toEqual({
      status: 400, body: { message: 'A PDB change needs {"stuck": true} or {"stuck": false}.' },
    });
  });
});
