import { afterEach, describe, expect, it } from 'vitest';
import type { FakeEphemeral, FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { until } from '../support/until.js';

/**
 * Issue 9's waiver flow as people in Slack live it, on the preflight-lab cluster whose one blocking finding is
 * K8S004 (payments: one replica behind minAvailable 1). The requester asks to waive it from the plan card, an
 * approver (not the requester: two-person rule) confirms, and `start` gets past preflight to the control-plane
 * gate; once the simulated clock passes the waiver's end, the same finding stops the next `start` again. The bot
 * runs on the simulator's clock (its Clock port), so jumping that clock moves the bot's "now" too.
 */
const CHANNEL = 'C0LAB';
let stack: E2eStack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

const DAY = 24 * 3600_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const hasAction = (message: { blocks?: unknown[] }, actionId: string) => JSON.stringify(message.blocks ?? []).includes(`"${actionId}"`);
const text = (message: { text?: string; blocks?: unknown[] }) => `${message.text ?? ''} ${JSON.stringify(message.blocks ?? [])}`;

function newEphemeral(fake: FakeSlack, user: string, seen: number, match: (e: FakeEphemeral) => boolean): Promise<FakeEphemeral> {
  return fake.waitFor((f) => f.ephemerals(user).slice(seen).find(match), { timeoutMs: 30_000 });
}

/** The thread reply of the newest job that carries a gate button: the control-plane gate or the preflight's Force gate. */
async function gateOf(fake: FakeSlack, threadsBefore: number): Promise<FakeMessage> {
  return fake.waitFor(
    (f) => {
      const parent = f.messages(CHANNEL).filter((m) => m.replies.length > 0 || hasAction(m, 'job:abort'))[threadsBefore];
      return parent?.replies.find((reply) => hasAction(reply, 'gate:abort'));
    },
    { timeoutMs: 60_000 },
  );
}

async function threads(fake: FakeSlack): Promise<number> {
  return fake.messages(CHANNEL).filter((m) => m.replies.length > 0 || hasAction(m, 'job:abort')).length;
}

/** Aborts the job at its open gate and waits until the cluster lock is free again (the job says it was aborted). */
async function abortAt(fake: FakeSlack, gate: FakeMessage): Promise<void> {
  await fake.clickButton({ userId: 'U0APP', channelId: CHANNEL, messageTs: gate.ts, actionId: 'gate:abort' });
  await fake.waitFor((f) => f.messages(CHANNEL).some((m) => /Aborted|aborted/.test(text(m))), { timeoutMs: 30_000 });
}

describe('a waiver asked for in Slack, approved by a second person', () => {
  it('unblocks start until it expires on the simulated clock; then the finding blocks again', async () => {
    stack = await startE2eStack({
      scenario: 'preflight-lab',
      botClock: 'sim',
      // Slow enough that the bot's own deadlines (60 simulated seconds to read a cluster) leave real time to work.
      speed: 5,
      pollSeconds: 30,
      clusters: [{ name: 'lab', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ'], twoPersonRule: true }],
    });
    const { fake, sim } = stack;
    // Every workload up (the ledger StatefulSet starts one pod at a time), so payments is the only blocker left.
    const store = sim.world.kube('lab')!;
    await until(
      () =>
        store.list('statefulsets').every((s) => s.status?.readyReplicas === s.spec?.replicas) &&
        store.list('poddisruptionbudgets').every((p) => p.metadata.name === 'payments-pdb' || (p.status?.disruptionsAllowed ?? 0) >= 1),
      'lab to settle',
    );

    // 1. The plan names the blocker, with Waive… on it.
    await fake.sendSlashCommand({ text: 'plan lab --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const plan = await newEphemeral(fake, 'U0REQ', 0, (e) => hasAction(e, 'waiver:request'));
    expect(text(plan)).toMatch(/Blocked\* by 1 error \(K8S004\)/);
    expect(text(plan)).toMatch(/insights as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(refreshed for this plan\)/);
    const k8s004 = JSON.parse(JSON.stringify(plan.blocks)).find((b: any) => b.accessory?.action_id === 'waiver:request' && b.text.text.includes('K8S004')).accessory.value;

    // 2. Waive… opens the modal; a date beyond 90 days is refused inline, a good one files the request.
    await fake.clickButton({ userId: 'U0REQ', channelId: CHANNEL, messageTs: plan.ts, actionId: 'waiver:request', value: k8s004 });
    await fake.waitFor((f) => f.modals().find((m) => m.user === 'U0REQ' && m.state === 'open'), { timeoutMs: 10_000 });
    const now = sim.clock.now();
    const tooLong = await fake.submitView({ userId: 'U0REQ', callbackId: 'waiver-request', values: { reason: 'payments runs one replica by design', expires: isoDate(now + 120 * DAY) } });
    expect(tooLong.errors?.['waiver-expiry']).toMatch(/at most 90 days/);
    await fake.submitView({ userId: 'U0REQ', callbackId: 'waiver-request', values: { reason: 'payments is single-writer; a 2-minute gap is agreed with the team', expires: isoDate(now + 2 * DAY) } });
    const card = await fake.waitFor((f) => f.messages(CHANNEL).find((m) => hasAction(m, 'waiver:approve')), { timeoutMs: 10_000 });
    expect(text(card)).toMatch(/K8S004.*deployment\/store\/payments/);

    // 3. The requester may not approve their own waiver; another approver can.
    const before = fake.ephemerals('U0REQ').length;
    await fake.clickButton({ userId: 'U0REQ', channelId: CHANNEL, messageTs: card.ts, actionId: 'waiver:approve' });
    expect((await newEphemeral(fake, 'U0REQ', before, () => true)).text).toMatch(/two-person rule/);
    await fake.clickButton({ userId: 'U0APP', channelId: CHANNEL, messageTs: card.ts, actionId: 'waiver:approve' });
    const approved = await fake.waitFor((f) => {
      const current = f.message(CHANNEL, card.ts);
      return current && hasAction(current, 'waiver:revoke') && current;
    }, { timeoutMs: 10_000 });
    expect(text(approved)).toMatch(/approved by_ <@U0APP>/);

    // 4. start: preflight passes (K8S004 waived) and the job reaches the control-plane gate.
    const first = await threads(fake);
    await fake.sendSlashCommand({ text: 'start lab --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const cpGate = await gateOf(fake, first);
    expect(text(cpGate)).toMatch(/Upgrade the control plane of lab to 1\.31/);
    const thread = fake.messages(CHANNEL).filter((m) => m.replies.length > 0 || hasAction(m, 'job:abort'))[first];
    expect(thread.replies.map(text).join('\n')).toMatch(/K8S004 error, waived: .*waived by U0APP until/);
    await abortAt(fake, cpGate);

    // 5. Three simulated days later the waiver has ended: the same finding stops preflight again.
    const res = await fetch(`${sim.url}/_sim/jump`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 3 * DAY }) });
    expect(res.status).toBe(200);
    const second = await threads(fake);
    await fake.sendSlashCommand({ text: 'start lab --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const forceGate = await gateOf(fake, second);
    expect(text(forceGate)).toMatch(/Preflight for lab → 1\.31 found 1 blocking problem/);
    expect(text(forceGate)).toMatch(/K8S004/);
    // The preflight card offers Waive… on the finding that blocks, as the plan card does.
    const waiveOnGate = JSON.parse(JSON.stringify(forceGate.blocks)).find((b: any) => b.accessory?.action_id === 'waiver:request');
    expect(JSON.parse(waiveOnGate.accessory.value)).toMatchObject({ c: 'lab', k: 'K8S004', r: 'deployment/store/payments' });
    await abortAt(fake, forceGate);
    expect((await stack.acceptedCalls('UpdateClusterVersion')).length).toBe(0);

    // 6. The record: `waivers lab` shows who asked, who approved, and that it has expired.
    const seen = fake.ephemerals('U0REQ').length;
    await fake.sendSlashCommand({ text: 'waivers lab', userId: 'U0REQ', channelId: CHANNEL });
    const list = await newEphemeral(fake, 'U0REQ', seen, (e) => /Waivers for lab/.test(text(e)));
    expect(text(list)).toMatch(/expired/);
    expect(text(list)).toMatch(/requested by <@U0REQ>.*approved by <@U0APP>/);

    // 7. From the (ephemeral) list an approver approves a second waiver, then revokes it; each answer says so.
    const avl001 = JSON.parse(JSON.stringify(plan.blocks)).find((b: any) => b.accessory?.action_id === 'waiver:request' && b.text.text.includes('AVL001') && b.text.text.includes('store/payments')).accessory.value;
    await fake.clickButton({ userId: 'U0REQ', channelId: CHANNEL, messageTs: plan.ts, actionId: 'waiver:request', value: avl001 });
    await fake.waitFor((f) => f.modals().filter((m) => m.user === 'U0REQ' && m.state === 'open').length === 1, { timeoutMs: 10_000 });
    await fake.submitView({ userId: 'U0REQ', callbackId: 'waiver-request', values: { reason: 'scaling payments is planned for next sprint', expires: isoDate(sim.clock.now() + 5 * DAY) } });
    await fake.waitFor((f) => f.messages(CHANNEL).filter((m) => hasAction(m, 'waiver:approve')).length === 1, { timeoutMs: 10_000 });
    const appSeen = fake.ephemerals('U0APP').length;
    await fake.sendSlashCommand({ text: 'waivers lab', userId: 'U0APP', channelId: CHANNEL });
    const pendingList = await newEphemeral(fake, 'U0APP', appSeen, (e) => hasAction(e, 'waiver:approve'));
    await fake.clickButton({ userId: 'U0APP', channelId: CHANNEL, messageTs: pendingList.ts, actionId: 'waiver:approve' });
    expect((await newEphemeral(fake, 'U0APP', appSeen + 1, (e) => /in force until/.test(e.text ?? ''))).text).toMatch(/AVL001 on deployment\/store\/payments \(lab\): in force until/);
    const seenNow = fake.ephemerals('U0APP').length;
    await fake.sendSlashCommand({ text: 'waivers lab', userId: 'U0APP', channelId: CHANNEL });
    const activeList = await newEphemeral(fake, 'U0APP', seenNow, (e) => hasAction(e, 'waiver:revoke'));
    await fake.clickButton({ userId: 'U0APP', channelId: CHANNEL, messageTs: activeList.ts, actionId: 'waiver:revoke' });
    expect((await newEphemeral(fake, 'U0APP', seenNow + 1, (e) => /revoked by/.test(e.text ?? ''))).text).toMatch(/AVL001 .*revoked by <@U0APP>/);

    // 8. The cluster's audit trail holds every waiver step beside the upgrades' own records.
    const auditSeen = fake.ephemerals('U0APP').length;
    await fake.sendSlashCommand({ text: 'audit lab', userId: 'U0APP', channelId: CHANNEL });
    const trail = text(await newEphemeral(fake, 'U0APP', auditSeen, (e) => /Audit trail of lab/.test(text(e))));
    expect(trail).toMatch(/<@U0APP> waiver:revoke \(button\): revoked/);
    expect(trail).toMatch(/<@U0APP> waiver:approve \(button\): approved/);
    expect(trail).toMatch(/<@U0REQ> waiver:request \(modal\): requested .*reason: “scaling payments is planned for next sprint”/);
    expect(trail).toMatch(/<@U0REQ> waiver:approve \(button\): refused/);
  }, 180_000);
});
