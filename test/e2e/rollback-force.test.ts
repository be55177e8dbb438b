import { DescribeClusterCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGate, blocksJson, openGateOf, type GateAnswer, type OpenGate } from '../support/e2e-thread.js';

/**
 * Issue 10: a rollback-readiness ERROR that the rollback itself does not clear (an API the older minor does not
 * serve) is shown with its resources by `plan --rollback` and by `rollback`, blocks the control plane at the gate,
 * and an approver forces past it with a reason that the audit trail keeps; EKS then takes the rollback (it refuses
 * one without `force` while the insight is ERROR). Afterwards, a second upgrade and 7 simulated days later,
 * `rollback` refuses with the date the window closed. The bot runs on the simulator's clock.
 */
const CHANNEL = 'C0DEMO';
const DAY = 24 * 3600_000;
let stack: E2eStack;

async function speed(value: number): Promise<void> {
  const res = await fetch(`${stack.sim.url}/_sim/speed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ speed: value }) });
  expect(res.ok).toBe(true);
}

function jobCards(fake: FakeSlack, kind: 'upgrade' | 'rollback'): FakeMessage[] {
  return fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage' && new RegExp(`EKS ${kind} · `).test(m.versions[0]?.text ?? m.text));
}

/** Sends a command at 5× (the bot reads within 60 simulated seconds) and returns the requester's next answer. */
async function command(text: string, userId = 'U0REQ'): Promise<string> {
  await speed(5);
  const seen = stack.fake.ephemerals(userId).length;
  await stack.fake.sendSlashCommand({ text, userId, channelId: CHANNEL });
  const answer = await stack.fake.waitFor((f) => f.ephemerals(userId)[seen], { timeoutMs: 30_000 });
  await speed(600);
  return [answer.text, blocksJson(answer)].join('\n');
}

async function runJob(kind: 'upgrade' | 'rollback', index: number, decide: (gate: OpenGate) => GateAnswer): Promise<{ summary: FakeMessage; gates: OpenGate[] }> {
  const gates: OpenGate[] = [];
  const seen = new Set<string>();
  for (;;) {
    const next = await stack.fake.waitFor(
      (f) => {
        const replies = jobCards(f, kind)[index]?.replies ?? [];
        const gate = replies.map(openGateOf).find((g) => g && !seen.has(`${g.gateId}:${g.revision}`));
        if (gate) return { gate };
        const summary = replies.find((reply) => /^(Upgrade|Rollback) \d+\.\d+ → \d+\.\d+: /u.test(reply.text));
        return summary && { summary };
      },
      { timeoutMs: 60_000 },
    );
    if ('summary' in next && next.summary) return { summary: next.summary, gates };
    const gate = (next as { gate: OpenGate }).gate;
    seen.add(`${gate.gateId}:${gate.revision}`);
    gates.push(gate);
    await answerGate(stack.fake, CHANNEL, gate, decide(gate), 'U0APP');
  }
}

const FORCE_REASON = 'the shop team moved web to apps/v1 in Git already; the scan is a day old';
let planText: string;
let dryRunStarted: string;
let dryRunSummary: FakeMessage;
let statusText: string;
let started: string;
let forceGates: OpenGate[];
let rollbackSummary: FakeMessage;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'demo',
    speed: 5,
    pollSeconds: 60,
    botClock: 'sim',
    clusters: [{ name: 'demo', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true, rollbackTimeoutMinutes: 240 }],
  });
  expect(await command('start demo --to 1.31')).toMatch(/Started upgrading demo/);
  await runJob('upgrade', 0, () => ({ action: 'continue' }));
  // An insight the rollback's own steps cannot clear.
  const res = await fetch(`${stack.sim.url}/_sim/clusters/demo/insights`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'API usage compatibility',
      status: 'ERROR',
      reason: 'Objects use an API version 1.30 does not serve.',
      resources: [{ kubernetesResourceUri: '/apis/apps/v1/namespaces/shop/deployments/web', reason: 'created with a 1.31-only field' }],
    }),
  });
  expect(res.ok).toBe(true);
  statusText = await command('status demo');
  planText = await command('plan demo --rollback');
  dryRunStarted = await command('rollback demo --dry-run');
  ({ summary: dryRunSummary } = await runJob('rollback', 0, () => ({ action: 'continue' })));
  started = await command('rollback demo');
  ({ summary: rollbackSummary, gates: forceGates } = await runJob('rollback', 1, (gate) =>
    gate.actions.includes('gate:force') ? { action: 'force', reason: FORCE_REASON } : { action: 'continue' },
  ));
}, 150_000);

afterAll(async () => {
  if (process.env.E2E_PRINT) console.log(stack?.fake.renderConversation({ showTimes: true }));
  await stack?.close();
});

describe('a rollback-readiness ERROR: shown, blocking, forced with a recorded reason', () => {
  it('status says until when the rollback is possible and what blocks it now', () => {
    expect(statusText).toMatch(/rollback to 1\.30 possible until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(statusText).toContain('API usage compatibility');
  });

  it('plan --rollback shows the rollback plan with the insight and its resource', () => {
    expect(planText).toMatch(/Rollback plan: demo 1\.31 → 1\.30/);
    expect(planText).toContain('RBK006');
    expect(planText).toContain('API usage compatibility');
    expect(planText).toContain('deployment/shop/web');
  });

  it('rollback --dry-run walks the rollback read-only', async () => {
    expect(dryRunStarted).toMatch(/Started a dry run of rolling back demo from 1\.31 to 1\.30/);
    expect(dryRunSummary.text).toMatch(/^Rollback 1\.31 → 1\.30: /u);
    expect(JSON.stringify(dryRunSummary.blocks)).toContain('would call UpdateClusterVersion demo → 1.30 with rollbackConfig.timeoutMinutes 240');
    expect(JSON.stringify(dryRunSummary.blocks)).toContain('This was a dry run: nothing was changed.');
  });

  it('rollback names the blocking insight with its resource when it starts', () => {
    expect(started).toMatch(/Started rolling back demo from 1\.31 to 1\.30/);
    expect(started).toMatch(/RBK006 error: Rollback-readiness insight "API usage compatibility" is ERROR.*deployment\/shop\/web/);
  });

  it('stops before the control plane at a Force / Abort card that names the insight, and goes on when forced', async () => {
    expect(forceGates).toHaveLength(1);
    expect(forceGates[0].actions).toEqual(['gate:force', 'gate:abort']);
    const shown = blocksJson(forceGates[0].message);
    expect(shown).toContain('API usage compatibility');
    expect(shown).toContain('deployment/shop/web');
    expect(rollbackSummary.text).toMatch(/^Rollback 1\.31 → 1\.30: \S* ?Succeeded/u);
    expect(blocksJson(rollbackSummary)).toContain(FORCE_REASON);
    const cluster = (await stack.eksClient().send(new DescribeClusterCommand({ name: 'demo' }))).cluster!;
    expect(cluster.version).toBe('1.30');
    const log = await (await fetch(`${stack.sim.url}/_sim/log`)).json() as { lines?: Array<{ message: string; force?: boolean; timeoutMinutes?: number }> };
    const started = (log.lines ?? []).find((line) => line.message === 'version rollback started');
    // EKS took the rollback with force and the cluster's rollbackTimeoutMinutes.
    expect(started).toMatchObject({ force: true, timeoutMinutes: 240 });
  });

  it('keeps the Force and its reason in the audit trail', async () => {
    const audit = await command('audit demo');
    expect(audit).toContain(FORCE_REASON);
    expect(audit).toMatch(/rollback/);
  });

  it('refuses the command once the 7 days after an upgrade are over, saying when the window closed', async () => {
    expect(await command('start demo --to 1.31')).toMatch(/Started upgrading demo/);
    await runJob('upgrade', 1, () => ({ action: 'continue' }));
    const jump = await fetch(`${stack.sim.url}/_sim/jump`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 7 * DAY + 60_000 }) });
    expect(jump.ok).toBe(true);
    const before = (await stack.acceptedCalls()).length;
    const refusal = await command('rollback demo');
    expect(refusal).toMatch(/demo cannot be rolled back to 1\.30: The 7-day rollback window of demo closed on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect((await stack.acceptedCalls()).length).toBe(before);
  }, 60_000);
});
