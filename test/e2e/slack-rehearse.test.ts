import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMutatingCalls } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { blocksJson } from '../support/e2e-thread.js';

/**
 * Issue 15 from Slack: `/eks-upgrade rehearse` queues a rehearsal for the worker, which reads the workshop cluster
 * (reads only), upgrades its simulated twin with the real engine and posts a thread marked REHEARSAL that ends
 * with the report; nothing is changed on the cluster it read.
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';
let stack: E2eStack;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'workshop',
    speed: 600,
    clusters: [{ name: CLUSTER, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], requireRehearsal: '24h', nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, '*': { strategy: 'in-place' } } }],
  });
}, 60_000);
afterAll(async () => stack?.close());

describe('/eks-upgrade rehearse', () => {
  it('refuses a bad --answers in a sentence, changing nothing', async () => {
    await stack.fake.sendSlashCommand({ text: `rehearse ${CLUSTER} --to 1.26 --answers maybe`, userId: 'U0REQ', channelId: CHANNEL });
    await stack.fake.waitFor((f) => f.ephemerals('U0REQ').some((e) => /is not a way to answer gates/.test(e.text)), { timeoutMs: 10_000 });
  });

  // --answers stop keeps this file short (the whole run is rehearse-workshop.test.ts): Abort at the first block.
  it('posts a REHEARSAL thread in the channel that ends with the report; the cluster read gets no mutating call', async () => {
    const sent = await stack.fake.sendSlashCommand({ text: `rehearse ${CLUSTER} --to 1.26 --answers stop`, userId: 'U0REQ', channelId: CHANNEL });
    expect(sent.status).toBe(200);
    await stack.fake.waitFor((f) => f.ephemerals('U0REQ').some((e) => /Rehearsing the upgrade of eksworkshop-eksctl to 1\.26/.test(e.text)), { timeoutMs: 10_000 });
    const report = () => stack.fake.messages(CHANNEL).flatMap((m) => m.replies ?? []).find((r) => r.text.includes('REHEARSAL report'));
    await stack.fake.waitFor(() => report() !== undefined, { timeoutMs: 60_000 });
    const card = stack.fake.messages(CHANNEL).find((m) => m.replies?.includes(report()!))!;
    expect(card.text).toContain('REHEARSAL');
    const shown = blocksJson(report()!) + report()!.text;
    expect(shown).toMatch(/gates answered: stop\): aborted/);
    expect(shown).toMatch(/K8S004 error: Deployment orders\/orders has 1 replica and PDB orders-pdb/);
    expect(shown).toMatch(/autoscaling\/v2beta2 horizontalpodautoscalers/);
    expect(card.replies!.filter((r) => /Started:/.test(r.text)).every((r) => r.text.includes('REHEARSAL'))).toBe(true);
    expect(countMutatingCalls(stack.sim)).toBe(0);
  }, 90_000);

  it('requireRehearsal: 24h refuses a real start whose last rehearsal did not succeed, saying what to run', async () => {
    await stack.fake.sendSlashCommand({ text: `start ${CLUSTER} --to 1.26`, userId: 'U0REQ', channelId: CHANNEL });
    await stack.fake.waitFor((f) => f.ephemerals('U0REQ').some((e) => /requires a successful rehearsal of the same plan within 24h/.test(e.text)), { timeoutMs: 30_000 });
    const refusal = stack.fake.ephemerals('U0REQ').find((e) => /requires a successful rehearsal/.test(e.text))!;
    expect(refusal.text).toMatch(/the last rehearsal to 1\.26 ended aborted: fix what it reported, then run `\/eks-upgrade rehearse eksworkshop-eksctl --to 1\.26`/);
    expect(refusal.text).toContain('Nothing was started.');
    expect(stack.sim.world.calls).toEqual([]);
  }, 60_000);
});
