import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';

/**
 * Reading an upgrade thread in the fake Slack the way a person scrolls it — the status card on top, the replies
 * under it, gate cards with buttons — and answering its gates as an approver would (Continue, the remedy button,
 * or Force with a reason typed into the modal).
 */

/** The upgrade's parent message: the status card the bot posted (and keeps editing). */
export function statusCard(fake: FakeSlack, channel: string, cluster?: string): FakeMessage | undefined {
  return fake
    .messages(channel)
    .find((m) => m.source === 'chat.postMessage' && /EKS upgrade · /.test(m.versions[0]?.text ?? m.text) && (!cluster || m.text.includes(` ${cluster} `)));
}

export function repliesOf(fake: FakeSlack, channel: string): FakeMessage[] {
  return statusCard(fake, channel)?.replies ?? [];
}

export function blocksJson(message: { blocks?: unknown[] }): string {
  return JSON.stringify(message.blocks ?? []);
}

export interface OpenGate {
  message: FakeMessage;
  jobId: string;
  gateId: string;
  revision: number;
  /** action ids offered, e.g. ['gate:continue', 'gate:force', 'gate:abort']. */
  actions: string[];
  /** Button labels in order, e.g. ['Continue', 'Scale orders to 2 replicas', 'Force', 'Abort']. */
  labels: string[];
}

/** A reply that currently shows gate buttons (an answered card has its buttons replaced by who answered). */
export function openGateOf(message: FakeMessage): OpenGate | undefined {
  const actions = (message.blocks ?? []).find(
    (b): b is { type: 'actions'; block_id: string; elements: Array<{ action_id: string; text: { text: string } }> } =>
      (b as { type?: string }).type === 'actions' && String((b as { block_id?: string }).block_id ?? '').startsWith('gate:'),
  );
  if (!actions) return undefined;
  // block_id = gate:<jobId>:<gateId>:<revision>
  const [, jobId, ...rest] = actions.block_id.split(':');
  const revision = Number(rest.pop());
  return {
    message,
    jobId,
    gateId: rest.join(':'),
    revision,
    actions: actions.elements.map((e) => e.action_id),
    labels: actions.elements.map((e) => e.text.text),
  };
}

export function openGates(fake: FakeSlack, channel: string): OpenGate[] {
  return repliesOf(fake, channel).flatMap((reply) => openGateOf(reply) ?? []);
}

/** The final summary reply ("🏁 Upgrade 1.25 → 1.26: ✅ Succeeded"). */
export function summaryReply(fake: FakeSlack, channel: string): FakeMessage | undefined {
  return repliesOf(fake, channel).find((reply) => /^Upgrade \d+\.\d+ → \d+\.\d+: \S* ?(Succeeded|Failed|Aborted)\b/u.test(reply.text));
}

export type GateAnswer = { action: 'continue' } | { action: 'remedy' } | { action: 'force'; reason: string } | { action: 'abort' };

export interface AnsweredGate extends OpenGate {
  answer: GateAnswer;
  /** The card's blocks as they were when the approver read it. */
  shown: string;
}

/** Clicks one answer on a gate card as `userId`; Force goes through its confirm dialog and the reason modal. */
export async function answerGate(fake: FakeSlack, channel: string, gate: OpenGate, answer: GateAnswer, userId: string): Promise<void> {
  const modalsBefore = fake.modals().length;
  const click = await fake.clickButton({ userId, channelId: channel, messageTs: gate.message.ts, actionId: `gate:${answer.action}` });
  if (click.status !== 200) throw new Error(`clicking ${answer.action} on gate ${gate.gateId}: the bot answered ${click.status} ${click.body}`);
  if (answer.action !== 'force') return;
  await fake.waitFor((f) => f.modals().length > modalsBefore && f.modals().at(-1)?.state === 'open', { timeoutMs: 10_000 });
  const submitted = await fake.submitView({ userId, callbackId: 'force-reason', values: { reason: answer.reason } });
  if (submitted.errors) throw new Error(`the Force modal refused the reason: ${JSON.stringify(submitted.errors)}`);
}

/**
 * Answers every gate the thread shows until the summary is posted, deciding each with `decide`. Returns the gates
 * in the order they were answered and the summary reply.
 */
export async function answerGatesUntilSummary(
  fake: FakeSlack,
  opts: {
    channel: string;
    approver: string;
    decide: (gate: OpenGate) => GateAnswer;
    timeoutMs?: number;
    /** Gates already answered by the test (`<gateId>:<revision>`), whose cards may still show buttons for a while. */
    alreadyAnswered?: string[];
  },
): Promise<{ gates: AnsweredGate[]; summary: FakeMessage }> {
  const answered = new Set<string>(opts.alreadyAnswered ?? []);
  const gates: AnsweredGate[] = [];
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`the upgrade did not post its summary in time; conversation:\n${fake.renderConversation()}`);
    const next = await fake.waitFor(
      (f) => {
        const gate = openGates(f, opts.channel).find((g) => !answered.has(`${g.gateId}:${g.revision}`));
        if (gate) return { gate };
        const summary = summaryReply(f, opts.channel);
        return summary && { summary };
      },
      { timeoutMs: left },
    );
    if ('summary' in next && next.summary) return { gates, summary: next.summary };
    const gate = (next as { gate: OpenGate }).gate;
    answered.add(`${gate.gateId}:${gate.revision}`);
    const answer = opts.decide(gate);
    gates.push({ ...gate, answer, shown: blocksJson(gate.message) });
    await answerGate(fake, opts.channel, gate, answer, opts.approver);
  }
}

/**
 * Answers every gate of every upgrade thread in `channel` with Continue as they appear, until `stop()` — the on-call
 * approver of a fleet rollout, where many clusters upgrade at once, each in its own thread.
 */
export function answerEveryGate(fake: FakeSlack, channel: string, approver: string): { stop(): void } {
  let running = true;
  const answered = new Set<string>();
  void (async () => {
    while (running) {
      for (const parent of fake.messages(channel)) {
        if (!/EKS upgrade · /.test(parent.versions[0]?.text ?? parent.text)) continue;
        for (const reply of parent.replies) {
          const gate = openGateOf(reply);
          const id = gate && `${gate.jobId}:${gate.gateId}:${gate.revision}`;
          if (!gate || !id || answered.has(id)) continue;
          answered.add(id);
          await answerGate(fake, channel, gate, { action: 'continue' }, approver).catch(() => undefined);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return { stop: () => void (running = false) };
}

/** The replies that are steps' own messages (each posted once and edited in place as the step goes), in thread order. */
export function stepMessagesOf(fake: FakeSlack, channel: string): FakeMessage[] {
  return repliesOf(fake, channel).filter((reply) => {
    const metadata = reply.metadata as { event_payload?: { post_id?: unknown } } | undefined;
    return String(metadata?.event_payload?.post_id ?? '').startsWith('upsert:');
  });
}

export interface StepMessageView {
  title: string;
  state: 'running' | 'finished' | 'failed' | 'aborted';
  /** "4m 12s", "<1s" once the step has ended. */
  duration?: string;
  /** What follows the headline: the progress line, the step's summary, or why it failed. */
  detail: string;
}

/** What a step message says now, read from its text as a person reads it ("✅ verify 1.31 finished in 3s — …"). */
export function readStepMessage(message: { text: string }): StepMessageView | undefined {
  const board = /^(⚠️|✅|❌|⏹️) ((?:REHEARSAL · )?Blocked disruptions in NodePool \S+)(?:: step (?:over|failed|aborted) after (<1s|\d+[smh](?: \d+[sm])?))?(?: — ([\s\S]*))?$/u.exec(message.text);
  if (board) {
    const [, icon, title, duration, detail = ''] = board;
    return { title, state: icon === '⚠️' ? 'running' : icon === '✅' ? 'finished' : icon === '❌' ? 'failed' : 'aborted', duration, detail };
  }
  const match = /^(▶️|✅|❌|⏹️) (.+?) (started|finished in (<1s|\d+[smh](?: \d+[sm])?)(?: \(nothing to do\))?|failed after (\S+(?: \d+s)?)|aborted after (\S+(?: \d+s)?))(?: — ([\s\S]*))?$/u.exec(message.text);
  if (!match) return undefined;
  const [, icon, title, , finishedIn, failedAfter, abortedAfter, detail = ''] = match;
  const state = icon === '▶️' ? 'running' : icon === '✅' ? 'finished' : icon === '❌' ? 'failed' : 'aborted';
  return { title, state, duration: finishedIn ?? failedAfter ?? abortedAfter, detail };
}

/** The step message of the step titled `title`, as it reads now. */
export function stepMessageTitled(fake: FakeSlack, channel: string, title: string): StepMessageView | undefined {
  return stepMessagesOf(fake, channel).map(readStepMessage).find((view) => view?.title === title);
}

/** The status card of the rollback job in `channel` ("EKS rollback · …"). */
export function rollbackCardOf(fake: FakeSlack, channel: string): FakeMessage | undefined {
  return fake.messages(channel).find((m) => m.source === 'chat.postMessage' && /EKS rollback · /.test(m.versions[0]?.text ?? m.text));
}

/**
 * Answers the rollback thread's gates as they open (`decide`), until its summary (`summary` matches a reply), a
 * refusal of the requester's `rollback` command, or a gate for which `stopAfter` says so has been answered.
 */
export async function answerRollbackGates(
  fake: FakeSlack,
  opts: { channel: string; requester: string; approver: string; summary: RegExp; decide: (gate: OpenGate) => GateAnswer; timeoutMs: number; stopAfter?: (gate: OpenGate) => boolean },
): Promise<{ summary?: FakeMessage; refused?: string; gates: OpenGate[] }> {
  const seen = new Set<string>();
  const gates: OpenGate[] = [];
  for (;;) {
    const next = await fake.waitFor(
      (f) => {
        const replies = rollbackCardOf(f, opts.channel)?.replies ?? [];
        const gate = replies.map(openGateOf).find((g) => g && !seen.has(`${g.gateId}:${g.revision}`));
        if (gate) return { gate };
        const summary = replies.find((reply) => opts.summary.test(reply.text));
        if (summary) return { summary };
        const refused = f.ephemerals(opts.requester).find((e) => /^(\S+ cannot be rolled back to|`rollback \S+` did not complete)/.test(e.text));
        return refused && { refused };
      },
      { timeoutMs: opts.timeoutMs },
    );
    if ('refused' in next && next.refused) return { refused: next.refused.text, gates };
    if ('summary' in next && next.summary) return { summary: next.summary, gates };
    const gate = (next as { gate: OpenGate }).gate;
    seen.add(`${gate.gateId}:${gate.revision}`);
    gates.push(gate);
    await answerGate(fake, opts.channel, gate, opts.decide(gate), opts.approver);
    if (opts.stopAfter?.(gate)) return { gates };
  }
}
