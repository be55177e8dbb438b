import { DescribeClusterCommand, UpdateClusterVersionCommand } from '@aws-sdk/client-eks';
import { afterAll, describe, expect, it } from 'vitest';
import { countMutatingCalls, type FakeSlack } from '@eks-upgrade-bot/sim';
import { WebClient } from '@slack/web-api';
import { rollbackOfferBlocks } from '../../src/report/blocks/render-timeline-event.js';
import { E2E_BOT_TOKEN, startE2eStack, type E2eStack } from '../support/e2e-stack.js';

/**
 * Issue 23 item 3: a rehearsal's messages carry no control that acts on a real cluster. A rehearsal is run from
 * Slack; then the real cluster is put where a rollback would be accepted (its control plane moved one minor up in
 * place), and an approver, then the requester, click every button on every message in the channel — the
 * rehearsal's, and whatever those clicks post — confirming every dialog and submitting every modal. The real cluster
 * receives no mutating call. (Before the fix the summary's "Roll back to 1.25" started a rollback of the real
 * cluster, and its gates answered, an UpdateClusterVersion.)
 */
const CHANNEL = 'C0OPS';
const APPROVER = 'U0APP';
const REQUESTER = 'U0REQ';

interface Target {
  ts: string;
  blocks?: unknown[];
}

interface Clickable {
  ts: string;
  actionId: string;
  value?: string;
  label: string;
}

function buttonsOf(target: Target): Clickable[] {
  const found: Clickable[] = [];
  for (const raw of target.blocks ?? []) {
    const block = raw as { type?: string; elements?: unknown[]; accessory?: unknown };
    const candidates = block.type === 'actions' ? block.elements ?? [] : [block.accessory];
    for (const candidate of candidates) {
      const element = candidate as { type?: string; action_id?: string; value?: string; text?: { text?: string } } | undefined;
      if (element?.type !== 'button') continue;
      found.push({ ts: target.ts, actionId: String(element.action_id ?? ''), value: element.value, label: String(element.text?.text ?? '') });
    }
  }
  return found;
}

/** Every message and reply of the channel and every ephemeral `user` sees, as they read now. */
function visibleTo(fake: FakeSlack, user: string): Target[] {
  const messages = fake.messages(CHANNEL).filter((m) => !m.deleted);
  return [
    ...messages,
    ...messages.flatMap((m) => (m.replies ?? []).filter((r) => !r.deleted)),
    ...fake.ephemerals(user).filter((e) => !e.deleted),
  ];
}

/** Text for every input of a modal (a free-text reason, the first option of a select). */
function fillModal(view: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of (view.blocks as unknown[] | undefined) ?? []) {
    const block = raw as { type?: string; block_id?: string; element?: { type?: string; options?: Array<{ value: string }> } };
    if (block.type !== 'input' || !block.block_id) continue;
    const option = block.element?.options?.[0]?.value;
    values[block.block_id] = option ?? 'clicking every button of a rehearsal thread (issue 23)';
  }
  return values;
}

/** Pause and Abort (of a job, of a gate): clicked only once nothing else is left, so they stop nothing early. */
function isStop(button: Clickable): boolean {
  return /^(gate:abort|job:abort|job:pause)$/.test(button.actionId);
}

/**
 * Until no upgrade or rollback card in the channel reads Queued or Running: each is finished, or waits on a gate
 * whose card (with its buttons) is in the thread.
 */
async function settled(fake: FakeSlack): Promise<void> {
  const gateCard = (replies: Target[]) => replies.some((r) => buttonsOf(r).some((b) => b.actionId.startsWith('gate:')));
  const busy = (f: FakeSlack) => f.messages(CHANNEL).some((m) => /^EKS (upgrade|rollback) · /.test(m.text)
    && (/: (Queued|Running) — /.test(m.text) || (/: Waiting for approval — /.test(m.text) && !gateCard(m.replies ?? []))));
  await fake.waitFor((f) => !busy(f), { timeoutMs: 90_000 }).catch(() => undefined);
}

/**
 * Clicks, as `user`, every button not clicked yet by them (confirming its dialog) and submits every modal a click
 * opens; waits for each click to be answered (a new ephemeral, a changed message or a modal). Returns how many
 * buttons it clicked.
 */
async function clickEverything(fake: FakeSlack, user: string, which: 'forward' | 'stop', clicked: Set<string>, log: string[]): Promise<number> {
  let count = 0;
  for (const target of visibleTo(fake, user)) {
    for (const button of buttonsOf(target).filter((b) => isStop(b) === (which === 'stop'))) {
      const key = `${user}|${button.ts}|${button.actionId}|${button.value ?? ''}`;
      if (clicked.has(key)) continue;
      clicked.add(key);
      count += 1;
      const before = fake.ephemerals(user).length + fake.modals().length + fake.messages(CHANNEL).flatMap((m) => [m, ...(m.replies ?? [])]).reduce((n, m) => n + m.versions.length, 0);
      const result = await fake.clickButton({ userId: user, channelId: CHANNEL, messageTs: button.ts, actionId: button.actionId, value: button.value, confirm: true });
      log.push(`${user} clicked "${button.label}" (${button.actionId}): ${result.status}`);
      // The bot answers every click somehow; a click it ignores is waited on no longer than 10 s.
      await fake
        .waitFor((f) => f.ephemerals(user).length + f.modals().length + f.messages(CHANNEL).flatMap((m) => [m, ...(m.replies ?? [])]).reduce((n, m) => n + m.versions.length, 0) > before, { timeoutMs: 10_000 })
        .catch(() => undefined);
      for (const modal of fake.modals().filter((m) => m.user === user && m.state === 'open')) {
        const submitted = await fake.submitView({ userId: user, viewId: modal.id, values: fillModal(modal.view) });
        log.push(`${user} submitted modal ${String(modal.view.callback_id)}: ${submitted.status}${submitted.errors ? ` ${JSON.stringify(submitted.errors)}` : ''}`);
      }
    }
  }
  return count;
}

async function rehearseThenClick(opts: { scenario: string; cluster: string; from: string; to: string; answers: string; clusterEntry: Record<string, unknown> }) {
  const stack: E2eStack = await startE2eStack({
    scenario: opts.scenario,
    speed: 600,
    clusters: [{ name: opts.cluster, region: 'us-west-2', channels: [CHANNEL], requesters: [REQUESTER], approvers: [APPROVER], ...opts.clusterEntry }],
  });
  stacks.push(stack);
  const { fake } = stack;
  await fake.sendSlashCommand({ text: `rehearse ${opts.cluster} --to ${opts.to} --answers ${opts.answers}`, userId: REQUESTER, channelId: CHANNEL });
  const report = () => fake.messages(CHANNEL).flatMap((m) => m.replies ?? []).find((r) => r.text.includes('REHEARSAL report'));
  await fake.waitFor(() => report() !== undefined, { timeoutMs: 170_000 });
  const rehearsal = fake.messages(CHANNEL).find((m) => m.replies?.includes(report()!))!;
  // The summary card is posted before the report: wait until the thread has it, the last thing with a control before.
  await fake.waitFor(() => (rehearsal.replies ?? []).some((r) => /REHEARSAL of the upgrade/.test(r.text)), { timeoutMs: 30_000 });
  expect(countMutatingCalls(stack.sim)).toBe(0);

  // The real cluster where a rollback would be accepted: its control plane moved one minor up, in place.
  const eks = stack.eksClient();
  await eks.send(new UpdateClusterVersionCommand({ name: opts.cluster, version: opts.to }));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { cluster } = await eks.send(new DescribeClusterCommand({ name: opts.cluster }));
    if (cluster?.version === opts.to && cluster.status === 'ACTIVE') break;
    if (Date.now() > deadline) throw new Error(`${opts.cluster} did not reach ${opts.to} in place`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const baseline = countMutatingCalls(stack.sim);

  const rehearsalButtons = [rehearsal, ...(rehearsal.replies ?? [])].flatMap(buttonsOf);
  const clicked = new Set<string>();
  const log: string[] = [];
  // Rounds until neither clicks anything new: what a click posts (a thread, a gate card) is clicked in turn, once
  // the jobs it started have reached a gate or their end; Pause and Abort last.
  for (let round = 0; round < 12; round += 1) {
    await settled(fake);
    const forward = (await clickEverything(fake, APPROVER, 'forward', clicked, log)) + (await clickEverything(fake, REQUESTER, 'forward', clicked, log));
    if (forward > 0) continue;
    const stops = (await clickEverything(fake, APPROVER, 'stop', clicked, log)) + (await clickEverything(fake, REQUESTER, 'stop', clicked, log));
    if (stops === 0) break;
  }
  if (process.env.E2E_PRINT) console.log(fake.messages(CHANNEL).map((m) => m.text).join("\n"), log.join('\n'), fake.renderConversation({ showTimes: true }));
  return { stack, rehearsal, rehearsalButtons, baseline, log };
}

const stacks: E2eStack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.close();
});

describe('a rehearsal\'s messages carry no control that acts on a real cluster', () => {
  it('workshop: every button clicked by an approver and the requester sends nothing to the real cluster', async () => {
    const run = await rehearseThenClick({
      scenario: 'workshop', cluster: 'eksworkshop-eksctl', from: '1.25', to: '1.26', answers: 'remedy',
      clusterEntry: {
        karpenter: { upgradeBudget: '1' },
        nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } },
      },
    });
    expect(countMutatingCalls(run.stack.sim) - run.baseline, run.log.join('\n')).toBe(0);
    expect(run.rehearsalButtons.map((b) => `${b.label} (${b.actionId})`)).toEqual([]);
    const shown = [run.rehearsal, ...(run.rehearsal.replies ?? [])].map((m) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`).join('\n');
    expect(shown).not.toMatch(/<@rehearsal/);
    expect(shown).not.toMatch(/Approved by|approved by <@/);
    expect(shown).toMatch(/answered automatically by the rehearsal \(--answers remedy\)/);
  }, 300_000);

  it('karpenter-lab: every button clicked by an approver and the requester sends nothing to the real cluster', async () => {
    const run = await rehearseThenClick({ scenario: 'karpenter-lab', cluster: 'eksworkshop-eksctl', from: '1.30', to: '1.31', answers: 'continue', clusterEntry: {} });
    expect(countMutatingCalls(run.stack.sim) - run.baseline, run.log.join('\n')).toBe(0);
    expect(run.rehearsalButtons.map((b) => `${b.label} (${b.actionId})`)).toEqual([]);
    const shown = [run.rehearsal, ...(run.rehearsal.replies ?? [])].map((m) => `${m.text}\n${JSON.stringify(m.blocks ?? [])}`).join('\n');
    expect(shown).not.toMatch(/<@rehearsal/);

    // A rehearsal card posted before this fix still shows a live Roll back (its job is the rehearsal engine's): the
    // click is refused in a sentence and nothing reaches the cluster.
    const client = new WebClient(E2E_BOT_TOKEN, { slackApiUrl: run.stack.fake.apiUrl, retryConfig: { retries: 0 } });
    const stale = await client.chat.postMessage({
      channel: CHANNEL, text: 'REHEARSAL of the upgrade 1.30 → 1.31: Succeeded',
      blocks: rollbackOfferBlocks({ jobId: 'u0stale1', cluster: 'eksworkshop-eksctl', to: '1.30', until: Date.now() + 86_400_000 }) as never,
    });
    await run.stack.fake.clickButton({ userId: REQUESTER, channelId: CHANNEL, messageTs: stale.ts!, actionId: 'rollback:start', confirm: true });
    await run.stack.fake.waitFor((f) => f.ephemerals(REQUESTER).some((e) => /This Roll back button is not from an upgrade of eksworkshop-eksctl the bot ran/.test(e.text)), { timeoutMs: 30_000 });
    expect(run.stack.fake.ephemerals(REQUESTER).find((e) => /not from an upgrade of/.test(e.text))!.text).toContain('nothing was started');
    expect(countMutatingCalls(run.stack.sim) - run.baseline).toBe(0);
  }, 300_000);
});
