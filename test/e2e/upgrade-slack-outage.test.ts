import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { until } from '../support/until.js';
import { answerGate, answerGatesUntilSummary, blocksJson, openGates, readStepMessage, repliesOf, statusCard, stepMessagesOf } from '../support/e2e-thread.js';

/**
 * Issue 5, "Slack answering 429 or 500 for a while delays posts but not the upgrade", end to end on `demo`: right
 * after the approver clicks Continue on the control-plane gate, Slack answers chat.postMessage and chat.update with
 * 429 (Retry-After 1) until the control plane is at 1.31, then with 500 until the node group update is issued. The control plane must reach 1.31 on the simulator's
 * schedule and the job must go on to the add-ons and the node group while Slack is still failing; once Slack is
 * back, every reply must arrive exactly once and in the order of the job's timeline, and the status card must end
 * in its final state.
 */
const CHANNEL = 'C0DEMO';
const SPEED = 200; // the 10-minute control-plane update takes 3 s
const UPDATE_MS = (10 * 60_000) / SPEED;
const OUTAGE_METHODS = ['chat.postMessage', 'chat.update'];

// One gate, before the control plane: the run is about the job going on while Slack fails, so the node group does
// not wait at a gate of its own (clusters.yaml gates.nodegroups: false, which the plan then says).
const DEMO = [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true, gates: { nodegroups: false } }];

let stack: E2eStack;
let summary: FakeMessage;
let lostAnswer: E2eStack;
const t: { outageStart: number; outageEnd: number; cpIssued?: number; cpActive?: number; addonIssued?: number; ngIssued?: number } = { outageStart: 0, outageEnd: 0 };

/** Steps whose message appears more than once in the thread (each step has one message, edited in place). */
function repeatedStepReplies(s: E2eStack): string[] {
  const titles = stepMessagesOf(s.fake, CHANNEL).map((m) => readStepMessage(m)?.title ?? m.text);
  return titles.filter((title, i) => titles.indexOf(title) !== i);
}

async function outageRun(): Promise<void> {
  stack = await startE2eStack({ scenario: 'demo', speed: SPEED, clusters: DEMO });
  const { fake, sim } = stack;
  await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
  const gate = await fake.waitFor((f) => openGates(f, CHANNEL).find((g) => g.gateId === 'h1-control-plane'), { timeoutMs: 20_000 });

  // Watch the world in real time from the click on: when the bot issued what, and when the update finished.
  const world = sim.world;
  const watcher = setInterval(() => {
    const now = Date.now();
    const issued = (op: string) => world.calls.some((c) => c.operation === op);
    t.cpIssued ??= issued('UpdateClusterVersion') ? now : undefined;
    t.cpActive ??= world.cluster('demo')?.version === '1.31' && world.cluster('demo')?.status === 'ACTIVE' ? now : undefined;
    t.addonIssued ??= issued('UpdateAddon') ? now : undefined;
    t.ngIssued ??= issued('UpdateNodegroupVersion') ? now : undefined;
  }, 20);

  await answerGate(fake, CHANNEL, gate, { action: 'continue' }, 'U0APP');
  t.outageStart = Date.now();
  // Each phase lasts until the bot has felt it and the job has moved on meanwhile: 429s until the control plane is
  // at 1.31, then 500s until the node group update is issued.
  const faulted = (status: number) => fake.calls.filter((c) => OUTAGE_METHODS.includes(c.method) && c.status === status).length;
  fake.setOutage({ methods: OUTAGE_METHODS, status: 429, retryAfter: 1 });
  await until(() => t.cpActive && faulted(429) >= 2, 'the control plane at 1.31 while Slack answers 429', 20_000);
  fake.setOutage({ methods: OUTAGE_METHODS, status: 500 });
  await until(() => t.ngIssued && faulted(500) >= 2, 'the node group update issued while Slack answers 500', 30_000);
  fake.clearOutage();
  t.outageEnd = Date.now();

  ({ summary } = await answerGatesUntilSummary(fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 60_000, alreadyAnswered: ['h1-control-plane:1'], decide: () => ({ action: 'continue' }) }));
  await fake.waitFor((f) => /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? '') && f.files().some((file) => file.threadTs !== undefined && file.text.length > 0), { timeoutMs: 20_000 });
  clearInterval(watcher);
}

/** A post that Slack took but whose answer was lost (HTTP 500 after the message was posted). */
async function lostAnswerRun(): Promise<void> {
  lostAnswer = await startE2eStack({ scenario: 'demo', speed: SPEED, clusters: DEMO });
  const { fake } = lostAnswer;
  await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
  await fake.waitFor((f) => repliesOf(f, CHANNEL).length >= 2, { timeoutMs: 20_000 });
  fake.failNext('chat.postMessage', { status: 500, applyFirst: true });
  await answerGatesUntilSummary(fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 60_000, decide: () => ({ action: 'continue' }) });
  await fake.waitFor((f) => /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? ''), { timeoutMs: 20_000 });
}

// Both runs at once: each is mostly waiting on the thread's pace (one post per second per channel).
beforeAll(() => Promise.all([outageRun(), lostAnswerRun()]), 110_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
  await lostAnswer?.close();
});

describe('Slack answering 429, then 500, during the upgrade of demo', () => {
  it('really failed the bot\'s posts for a while (429 with Retry-After, then 500)', () => {
    const faulted = stack.fake.calls.filter((c) => OUTAGE_METHODS.includes(c.method) && !c.ok);
    expect(faulted.some((c) => c.status === 429)).toBe(true);
    expect(faulted.some((c) => c.status === 500)).toBe(true);
    // Nothing reached the thread while Slack was failing every post.
    const during = repliesOf(stack.fake, CHANNEL).filter((r) => r.postedAt > t.outageStart + 100 && r.postedAt < t.outageEnd - 100);
    expect(during).toEqual([]);
  });

  it('does not wait for Slack: the control plane reaches 1.31 on schedule and the job moves on during the outage', () => {
    expect(t.cpIssued).toBeDefined();
    expect(t.cpIssued! - t.outageStart).toBeLessThan(2_000);
    expect(t.cpActive! - t.cpIssued!).toBeLessThan(UPDATE_MS + 1_500);
    // The bot followed the update to its end and issued the next steps' calls while every post still failed.
    // At or before the outage's end: it ends the moment the node group update is seen issued, often in the same
    // millisecond on a busy machine (strictly less failed so under load).
    expect(t.addonIssued).toBeLessThanOrEqual(t.outageEnd);
    expect(t.ngIssued).toBeLessThanOrEqual(t.outageEnd);
    expect(stack.sim.world.calls.filter((c) => c.operation === 'UpdateClusterVersion')).toHaveLength(1);
  });

  it('delivers every step reply exactly once, in the order of the job\'s timeline, once Slack is back', () => {
    const replies = repliesOf(stack.fake, CHANNEL);
    const steps = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m));
    expect(repeatedStepReplies(stack), 'replies posted twice').toEqual([]);
    // The exported timeline keeps every event in the order it happened; the thread has one message per step, in
    // the order the steps started, each edited to its end.
    const file = stack.fake.files().find((f) => f.name.endsWith('.md'))!;
    const timeline = [...file.text.matchAll(/^- .* UTC — (Started|Finished) \*\*(.+?)\*\*/gm)].map((m) => `${m[1]}: ${m[2]}`);
    expect(timeline.length).toBeGreaterThanOrEqual(12); // the plan's 6 steps for demo, each started and finished
    expect(steps.map((v) => v?.title)).toEqual(timeline.filter((line) => line.startsWith('Started: ')).map((line) => line.slice('Started: '.length)));
    expect(steps.every((v) => v?.state === 'finished' && v.duration !== undefined)).toBe(true);
    expect(replies.filter((r) => r === summary)).toHaveLength(1);
    expect(replies.filter((r) => /^Upgrade 1\.30 → 1\.31: /.test(r.text))).toHaveLength(1);
    expect(stack.fake.files()).toHaveLength(1);
    // Gate cards: one per gate, each edited in place to its answer.
    const gateCards = replies.filter((r) => blocksJson(r).includes('Gate `h1-') || /Approved by/.test(blocksJson(r)));
    expect(gateCards).toHaveLength(1);
    expect(blocksJson(gateCards[0])).toContain('Approved by <@U0APP>');
    // The approver clicked once and was never told "already approved" (the click did not depend on Slack posts).
    expect(stack.fake.ephemerals('U0APP')).toEqual([]);
  });

  it('leaves the status card in its final state', () => {
    const card = statusCard(stack.fake, CHANNEL)!;
    expect(stack.fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage')).toHaveLength(1);
    expect(card.text).toMatch(/^EKS upgrade · demo 1\.30 → 1\.31: Succeeded — /);
    expect(blocksJson(card)).not.toMatch(/job:pause|job:abort/);
    expect(stack.sim.world.cluster('demo')?.version).toBe('1.31');
  });
});

describe('Slack taking a post but answering 500 (the answer is lost)', () => {
  it('still completes the upgrade', () => {
    expect(lostAnswer.fake.calls.some((c) => c.method === 'chat.postMessage' && c.status === 500)).toBe(true);
    expect(lostAnswer.sim.world.cluster('demo')?.version).toBe('1.31');
  });

  // The outbox finds the post by the id in its metadata (conversations.replies) instead of posting it again.
  it('does not post that reply twice', () => {
    const texts = repliesOf(lostAnswer.fake, CHANNEL).map((r) => r.text);
    expect(texts.filter((text, i) => texts.indexOf(text) !== i)).toEqual([]);
  });
});
