import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimServer } from '@eks-upgrade-bot/sim';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import { simSources } from './read-path-harness.js';
import { startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';

/**
 * Every command and button × every kind of person, through the real Bolt app: what is allowed reaches the engine,
 * what is refused gets a private sentence, an audit record, and changes nothing. The job under test was started
 * by U0REQ. Two configurations of the same simulated cluster `demo`:
 *  - plain:   requesters [U0REQ], approvers [U0APP, S0ONCALL], no two-person rule (U0REQ is only a requester);
 *  - twoPerson: requesters [U0REQ], approvers [U0APP, U0REQ, S0ONCALL], twoPersonRule (U0REQ approves, but not their own job).
 * U0ONCALL is in user group S0ONCALL; U0OUT is nobody; C0ELSE is a channel clusters.yaml does not list for demo.
 */
type Role = 'requester' | 'approver' | 'outsider' | 'requester-2pr' | 'group-member' | 'other-channel';
type Act = 'start' | 'pause' | 'resume' | 'abort' | 'gate:continue' | 'gate:remedy' | 'gate:force' | 'gate:abort' | 'job:pause' | 'job:resume' | 'job:abort';

const WHO: Record<Role, { user: string; channel: string; config: 'plain' | 'twoPerson' }> = {
  requester: { user: 'U0REQ', channel: 'C0DEMO', config: 'plain' },
  approver: { user: 'U0APP', channel: 'C0DEMO', config: 'twoPerson' },
  outsider: { user: 'U0OUT', channel: 'C0DEMO', config: 'twoPerson' },
  'requester-2pr': { user: 'U0REQ', channel: 'C0DEMO', config: 'twoPerson' },
  'group-member': { user: 'U0ONCALL', channel: 'C0DEMO', config: 'twoPerson' },
  'other-channel': { user: 'U0APP', channel: 'C0ELSE', config: 'twoPerson' },
};

// ✓ allowed, ✗ refused. Stopping (pause, abort) is open to the requester; answering and resuming need an approver
// who is not the requester under the two-person rule; starting needs a requester; nothing works from C0ELSE.
const Y = true;
const N = false;
const MATRIX: Record<Act, Record<Role, boolean>> = {
  start: { requester: Y, approver: N, outsider: N, 'requester-2pr': Y, 'group-member': N, 'other-channel': N },
  pause: { requester: Y, approver: Y, outsider: N, 'requester-2pr': Y, 'group-member': Y, 'other-channel': N },
  resume: { requester: N, approver: Y, outsider: N, 'requester-2pr': N, 'group-member': Y, 'other-channel': N },
  abort: { requester: Y, approver: Y, outsider: N, 'requester-2pr': Y, 'group-member': Y, 'other-channel': N },
  'gate:continue': { requester: N, approver: Y, outsider: N, 'requester-2pr': N, 'group-member': Y, 'other-channel': N },
  'gate:remedy': { requester: N, approver: Y, outsider: N, 'requester-2pr': N, 'group-member': Y, 'other-channel': N },
  'gate:force': { requester: N, approver: Y, outsider: N, 'requester-2pr': N, 'group-member': Y, 'other-channel': N },
  'gate:abort': { requester: Y, approver: Y, outsider: N, 'requester-2pr': Y, 'group-member': Y, 'other-channel': N },
  'job:pause': { requester: Y, approver: Y, outsider: N, 'requester-2pr': Y, 'group-member': Y, 'other-channel': N },
  'job:resume': { requester: N, approver: Y, outsider: N, 'requester-2pr': N, 'group-member': Y, 'other-channel': N },
  'job:abort': { requester: Y, approver: Y, outsider: N, 'requester-2pr': Y, 'group-member': Y, 'other-channel': N },
};

const CONFIGS = {
  plain: parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'S0ONCALL'] }] }),
  twoPerson: parseClustersConfig({
    clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ', 'S0ONCALL'], twoPersonRule: true }],
  }),
};

let sim: SimServer;
const harnesses: Partial<Record<'plain' | 'twoPerson', SlackHarness>> = {};
beforeAll(async () => {
  sim = await startSimulator({ scenario: 'demo', port: 0, host: '127.0.0.1', speed: 60 });
  const { eks, kube, ssm, ec2 } = simSources(sim);
  for (const name of ['plain', 'twoPerson'] as const) {
    // Each cell posts its own thread parent and card into C0DEMO (132 posts a configuration): Slack's limit of one
    // post per second per channel would hold the matrix for a minute, and the matrix asks who may do what, not that.
    harnesses[name] = await startSlackHarness({ config: CONFIGS[name], eks, kube, ssm, ec2, slackRateLimits: 'off' });
  }
});
afterAll(async () => {
  for (const harness of Object.values(harnesses)) await harness?.close();
  await sim?.close();
});

const mutationFor: Record<Act, string> = {
  start: 'start', pause: 'pause', resume: 'resume', abort: 'abort', 'gate:continue': 'answerGate', 'gate:remedy': 'answerGate',
  'gate:force': 'views.open', 'gate:abort': 'answerGate', 'job:pause': 'pause', 'job:resume': 'resume', 'job:abort': 'abort',
};

async function act(harness: SlackHarness, role: Role, action: Act): Promise<{ allowed: boolean; reply?: string }> {
  const { user, channel } = WHO[role];
  const paused = action === 'resume' || action === 'job:resume';
  // A fresh job per cell (each in its own channel thread), with an open gate, started by U0REQ.
  const parent = await harness.slack.client.chat.postMessage({ channel, text: 'Upgrade of demo 1.30 → 1.31' });
  const job = harness.control.seed({ cluster: 'demo', requestedBy: 'U0REQ', state: paused ? 'paused' : 'running', thread: { channel, ts: parent.ts! } });
  harness.control.openGate(job.jobId, 'h1-control-plane', 1, 'Upgrade the control plane of demo to 1.31?');
  const mutationsBefore = harness.control.mutations().length;
  const modalsBefore = harness.fake.modals().length;
  const auditBefore = (await harness.audit.read('demo')).length;
  const repliesBefore = harness.fake.ephemerals(user).length;

  if (action === 'start' || action === 'pause' || action === 'resume' || action === 'abort') {
    if (action === 'start') await harness.control.abort(job.jobId, 'U0APP'); // the cluster must be free to start
    const text = action === 'start' ? 'start demo --to 1.31' : `${action} ${job.jobId}`;
    await harness.fake.sendSlashCommand({ text, userId: user, channelId: channel });
  } else if (action.startsWith('gate:')) {
    const card = await harness.slack.client.chat.postMessage({
      channel,
      thread_ts: parent.ts,
      ...renderGateCard({ jobId: job.jobId, gateId: 'h1-control-plane', revision: 1, title: 'Upgrade?', details: [], actions: ['continue', 'remedy', 'force', 'abort'], remedyLabel: 'Scale orders to 2 replicas' }),
    });
    await harness.fake.clickButton({ userId: user, channelId: channel, messageTs: card.ts!, actionId: action });
  } else {
    const card = await harness.slack.client.chat.postMessage({
      channel,
      text: 'status card',
      blocks: [{ type: 'actions', elements: [{ type: 'button', action_id: action, text: { type: 'plain_text', text: action }, value: JSON.stringify({ jobId: job.jobId }) }] }],
    });
    await harness.fake.clickButton({ userId: user, channelId: channel, messageTs: card.ts!, actionId: action });
  }
  const mutated = () =>
    mutationFor[action] === 'views.open' ? harness.fake.modals().length > modalsBefore : harness.control.mutations().slice(mutationsBefore + (action === 'start' ? 1 : 0)).some((call) => call.method === mutationFor[action]);
  // Wait for the outcome the bot shows: the engine was reached, or a private reply arrived.
  await harness.fake.waitFor(() => mutated() || harness.fake.ephemerals(user).length > repliesBefore, { timeoutMs: 15_000 });
  if (!mutated()) await harness.fake.waitFor(async () => (await harness.audit.read('demo')).length > auditBefore).catch(() => undefined);
  return { allowed: mutated(), reply: harness.fake.ephemerals(user).slice(repliesBefore)[0]?.text };
}

describe('authorization matrix', () => {
  for (const action of Object.keys(MATRIX) as Act[]) {
    it(`${action}`, async () => {
      for (const role of Object.keys(WHO) as Role[]) {
        const harness = harnesses[WHO[role].config]!;
        const auditBefore = (await harness.audit.read('demo', { limit: 1000 })).length;
        const outcome = await act(harness, role, action);
        expect({ role, allowed: outcome.allowed }).toEqual({ role, allowed: MATRIX[action][role] });
        if (!MATRIX[action][role]) {
          expect(outcome.reply, `${role} ${action}: the refusal is a private sentence`).toMatch(/^(Only the approvers|You are not among the requesters|demo follows the two-person rule|demo cannot be driven from this channel)/);
          const records = await harness.audit.read('demo', { limit: 1000 });
          expect(records.length, `${role} ${action}: the refusal is in the audit trail`).toBeGreaterThan(auditBefore);
          expect(records[0]).toMatchObject({ user: WHO[role].user, outcome: 'refused' });
        }
      }
    });
  }
});
