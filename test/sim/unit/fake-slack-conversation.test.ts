import { describe, expect, it } from 'vitest';
import { renderConversation } from '../../../src/sim/slack/render-conversation.js';
import { createSlackConversation } from '../../../src/sim/slack/slack-conversation.js';

function manualClock(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => { now += ms; } };
}

const gateBlocks = [
  { type: 'section', text: { type: 'mrkdwn', text: '*Gate:* upgrade the control plane of demo to 1.31?' } },
  {
    type: 'actions',
    block_id: 'gate:j1:g1:1',
    elements: [
      { type: 'button', action_id: 'gate:continue', style: 'primary', text: { type: 'plain_text', text: 'Continue' } },
      { type: 'button', action_id: 'gate:abort', style: 'danger', text: { type: 'plain_text', text: 'Abort' } },
    ],
  },
];

describe('the fake Slack conversation', () => {
  it('gives every message a unique, strictly increasing Slack ts even when the clock stands still', () => {
    const clock = manualClock(1_700_000_000_000);
    const conversation = createSlackConversation({ clock: clock.now });
    const first = conversation.nextTs();
    const second = conversation.nextTs();
    expect(first).toBe('1700000000.000000');
    expect(second).toBe('1700000000.000001');
    clock.advance(1500);
    expect(conversation.nextTs()).toBe('1700000001.500000');
  });

  it('renders commands, ephemerals, edited cards, thread replies, clicks and files in reading order', () => {
    const clock = manualClock();
    const c = createSlackConversation({ clock: clock.now });
    const tick = () => clock.advance(1000);
    c.record({ kind: 'command', channel: 'C0DEMO', user: 'U0REQ', command: '/eks-upgrade', text: 'start demo --to 1.31', at: clock.now() });
    tick();
    c.postEphemeral({ channel: 'C0DEMO', user: 'U0REQ', text: 'Starting the upgrade of demo to 1.31…', source: 'ack' });
    tick();
    const card = c.postMessage({
      channel: 'C0DEMO', user: 'U0BOT', source: 'chat.postMessage', text: 'Upgrade demo',
      blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Upgrade demo 1.30 → 1.31' } }, { type: 'section', text: { type: 'mrkdwn', text: 'Step: gate' } }],
    });
    tick();
    const gate = c.postMessage({ channel: 'C0DEMO', threadTs: card.ts, user: 'U0BOT', source: 'chat.postMessage', text: 'Gate', blocks: gateBlocks });
    tick();
    c.record({ kind: 'command', channel: 'C0DEMO', user: 'U0OTHER', command: '/eks-upgrade', text: 'status demo', at: clock.now() });
    tick();
    c.record({ kind: 'click', channel: 'C0DEMO', threadTs: card.ts, user: 'U0APP', label: 'Continue', actionId: 'gate:continue', messageTs: gate.ts, at: clock.now() });
    tick();
    c.updateMessage(gate, { text: 'Gate approved', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Approved by <@U0APP>' } }] });
    c.updateMessage(card, { blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Upgrade demo 1.30 → 1.31' } }, { type: 'section', text: { type: 'mrkdwn', text: 'Step: done ✅' } }] });
    c.postEphemeral({ channel: 'C0DEMO', user: 'U0OTHER', text: 'demo: control plane 1.31', source: 'response_url' });
    const file = { id: 'F1', name: 'timeline.md', title: 'Timeline', length: 6, text: 'a\nb\nc\n', lines: 3, createdAt: clock.now() };
    c.addFile(file);
    c.postMessage({ channel: 'C0DEMO', threadTs: card.ts, user: 'U0BOT', source: 'files.completeUploadExternal', text: '', files: [file] });

    expect(renderConversation(c.entries)).toMatchInlineSnapshot(`
      "> /eks-upgrade start demo --to 1.31  — @U0REQ
      eks-upgrade → @U0REQ (only visible to you):
        Starting the upgrade of demo to 1.31…
      eks-upgrade (edited):
        *UPGRADE DEMO 1.30 → 1.31*
        Step: done ✅
        │ eks-upgrade (edited):
        │   Approved by @U0APP
        │ 👆 @U0APP clicked [ Continue ]
        │ eks-upgrade:
        │   📎 timeline.md (3 lines)
      > /eks-upgrade status demo  — @U0OTHER
      eks-upgrade → @U0OTHER (only visible to you):
        demo: control plane 1.31"
    `);
    expect(renderConversation(c.entries, { showTimes: true }).split('\n')[0]).toBe('[12:00:00] > /eks-upgrade start demo --to 1.31  — @U0REQ');
  });

  it('shows a channel marker when the conversation spans channels, and filters by channel', () => {
    const c = createSlackConversation({ clock: manualClock().now });
    c.postMessage({ channel: 'C1', user: 'U0BOT', source: 'chat.postMessage', text: 'one' });
    c.postMessage({ channel: 'C2', user: 'U0BOT', source: 'chat.postMessage', text: 'two' });
    expect(renderConversation(c.entries)).toMatchInlineSnapshot(`
      "── #C1 ──
      eks-upgrade:
        one
      ── #C2 ──
      eks-upgrade:
        two"
    `);
    expect(renderConversation(c.entries, { channel: 'C2' })).toBe('eks-upgrade:\n  two');
  });

  it('hides deleted messages unless they have a thread, and emits change events', () => {
    const c = createSlackConversation({ clock: manualClock().now });
    let changes = 0;
    c.events.on('change', () => { changes += 1; });
    const lonely = c.postMessage({ channel: 'C1', user: 'U0BOT', source: 'chat.postMessage', text: 'gone' });
    const parent = c.postMessage({ channel: 'C1', user: 'U0BOT', source: 'chat.postMessage', text: 'parent' });
    c.postMessage({ channel: 'C1', threadTs: parent.ts, user: 'U0BOT', source: 'chat.postMessage', text: 'reply' });
    c.deleteMessage(lonely);
    c.deleteMessage(parent);
    expect(renderConversation(c.entries)).toBe('(message deleted)\n  │ eks-upgrade:\n  │   reply');
    expect(changes).toBe(5);
  });
});
