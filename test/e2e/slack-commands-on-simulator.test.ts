import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { startSimulator, type SimServer } from '@eks-upgrade-bot/sim';
import { startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * A person in Slack against the simulated `demo` cluster (1.30, two nodes in managed node group demo-ng, EKS
 * offering 1.30–1.33): signed slash commands into the real Bolt app, the real EKS SDK and client-node against the
 * simulator over HTTP. The engine is the in-memory double: here we check what the Slack surface reads and refuses.
 */
let sim: SimServer;
let harness: SlackHarness;

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1' });
  const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
  const eks = createEksPortFactory({ endpoint: sim.url, credentials, maxAttempts: 1 });
  const kube = createKubePortFactory({ eks, credentials, tokenSourceFor: () => ({ token: async () => 'sim' }) });
  harness = await startSlackHarness({ eks, kube });
});
afterAll(async () => {
  await harness?.close();
  await sim?.close();
});

async function ask(text: string, user = 'U0REQ'): Promise<string> {
  const before = harness.fake.ephemerals(user).length;
  const result = await harness.fake.sendSlashCommand({ text, userId: user, channelId: 'C0DEMO' });
  expect(result.status).toBe(200);
  expect(result.ackMs).toBeLessThan(3_000);
  const reply = await harness.fake.waitFor((fake) => fake.ephemerals(user)[before], { timeoutMs: 10_000 });
  return reply.text;
}

describe('/eks-upgrade on the simulated demo cluster', () => {
  it('status demo shows the control plane at 1.30 and both nodes of demo-ng', async () => {
    const text = await ask('status demo');
    expect(text).toMatch(/\*demo\*: control plane 1\.30 \(platform eks\.\d+\), ACTIVE/);
    expect(text).toMatch(/managed node group `demo-ng`: 2 nodes, kubelet v1\.30\.\d+-eks-[0-9a-f]+ ×2/);
  });

  it('start refuses what EKS cannot do, in words, without touching the cluster', async () => {
    expect(await ask('start demo --to 1.34')).toBe('EKS does not offer Kubernetes 1.34 (it offers 1.30–1.33).');
    expect(await ask('start demo --to 1.30')).toBe('demo is already at 1.30.');
    expect(harness.control.mutations()).toEqual([]);
    expect(sim.world.calls.filter((call) => !call.operation.startsWith('Describe') && !call.operation.startsWith('List'))).toEqual([]);
  });

  it('start demo --to 1.31 hands the engine the version the simulator reports', async () => {
    expect(await ask('start demo --to 1.31')).toMatch(/Started upgrading demo from 1\.30 to 1\.31/);
    expect(harness.control.mutations()).toEqual([
      { method: 'start', args: [{ cluster: 'demo', region: 'us-west-2', to: '1.31', requestedBy: 'U0REQ', channel: 'C0DEMO', dryRun: false }, '1.30'] },
    ]);
  });
});
