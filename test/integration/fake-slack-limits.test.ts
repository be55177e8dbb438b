import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';

// Every documented Block Kit / message / modal limit (docs/slack-limits.md), fed to the fake Slack over HTTP as one
// payload that breaks exactly that limit: each must be refused as Slack refuses it, naming the JSON pointer.
let slack: FakeSlack;
const warnings: string[] = [];

beforeAll(async () => {
  slack = await startFakeSlack({ signingSecret: 'limits-secret', rateLimits: 'off', log: (message) => warnings.push(message) });
});
afterAll(async () => {
  await slack.close();
});

async function call(method: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: 'Bearer xoxb-limits' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Record<string, any>;
}

const x = (n: number) => 'x'.repeat(n);
const plain = (text: string) => ({ type: 'plain_text', text });
const mrkdwn = (text: string) => ({ type: 'mrkdwn', text });
const button = (extra: Record<string, unknown> = {}) => ({ type: 'button', action_id: 'go', text: plain('Go'), value: 'v', ...extra });
const confirm = (extra: Record<string, unknown> = {}) => ({ title: plain('Sure?'), text: plain('It stops.'), confirm: plain('Yes'), deny: plain('No'), ...extra });
const section = (text = 'hello') => ({ type: 'section', text: mrkdwn(text) });
const actions = (...elements: unknown[]) => ({ type: 'actions', elements });

const messageCases: Array<[string, unknown[], string]> = [
  ['header text must be plain_text', [{ type: 'header', text: mrkdwn('Title') }], '/blocks/0/text/type'],
  ['button text must be plain_text', [actions(button({ text: mrkdwn('Go') }))], '/blocks/0/elements/0/text/type'],
  ['section text may not be empty', [section('')], '/blocks/0/text/text'],
  ['header text may not be empty', [{ type: 'header', text: plain('') }], '/blocks/0/text/text'],
  ['button url ≤ 3000', [actions(button({ url: `https://example.com/${x(3000)}` }))], '/blocks/0/elements/0/url'],
  ['button accessibility_label ≤ 75', [actions(button({ accessibility_label: x(76) }))], '/blocks/0/elements/0/accessibility_label'],
  ['button style primary|danger', [actions(button({ style: 'green' }))], '/blocks/0/elements/0/style'],
  ['confirm style primary|danger', [actions(button({ confirm: confirm({ style: 'blue' }) }))], '/blocks/0/elements/0/confirm/style'],
  ['confirm title ≤ 100', [actions(button({ confirm: confirm({ title: plain(x(101)) }) }))], '/blocks/0/elements/0/confirm/title/text'],
  ['confirm text ≤ 300', [actions(button({ confirm: confirm({ text: plain(x(301)) }) }))], '/blocks/0/elements/0/confirm/text/text'],
  ['confirm button ≤ 30', [actions(button({ confirm: confirm({ deny: plain(x(31)) }) }))], '/blocks/0/elements/0/confirm/deny/text'],
  ['confirm title must be plain_text', [actions(button({ confirm: confirm({ title: mrkdwn('Sure?') }) }))], '/blocks/0/elements/0/confirm/title/type'],
  ['context elements are images and text objects', [{ type: 'context', elements: [button()] }], '/blocks/0/elements/0'],
  ['context holds at most 10 elements', [{ type: 'context', elements: Array.from({ length: 11 }, () => mrkdwn('a')) }], '/blocks/0/elements'],
  ['context needs an element', [{ type: 'context', elements: [] }], '/blocks/0/elements'],
  ['context text ≤ 3000', [{ type: 'context', elements: [mrkdwn(x(3001))] }], '/blocks/0/elements/0/text'],
  ['section text ≤ 3000', [section(x(3001))], '/blocks/0/text/text'],
  ['section text counts UTF-16 units (1,501 rockets = 3,002)', [section('🚀'.repeat(1501))], '/blocks/0/text/text'],
  ['header ≤ 150', [{ type: 'header', text: plain(x(151)) }], '/blocks/0/text/text'],
  ['section fields ≤ 10', [{ type: 'section', fields: Array.from({ length: 11 }, () => mrkdwn('f')) }], '/blocks/0/fields'],
  ['section field ≤ 2000', [{ type: 'section', fields: [mrkdwn(x(2001))] }], '/blocks/0/fields/0/text'],
  ['section needs text or fields', [{ type: 'section' }], '/blocks/0'],
  ['a message holds at most 50 blocks', Array.from({ length: 51 }, () => section()), '/blocks'],
  ['button value ≤ 2000', [actions(button({ value: x(2001) }))], '/blocks/0/elements/0/value'],
  ['button text ≤ 75', [actions(button({ text: plain(x(76)) }))], '/blocks/0/elements/0/text/text'],
  ['action_id ≤ 255', [actions(button({ action_id: x(256) }))], '/blocks/0/elements/0/action_id'],
  ['action_id unique in a block', [actions(button(), button())], '/blocks/0/elements/1/action_id'],
  ['block_id ≤ 255', [{ ...section(), block_id: x(256) }], '/blocks/0/block_id'],
  ['block_id unique in a message', [{ ...section(), block_id: 'b' }, { ...section(), block_id: 'b' }], '/blocks/1/block_id'],
  ['actions hold at most 25 elements', [actions(...Array.from({ length: 26 }, (_, i) => button({ action_id: `a${i}` })))], '/blocks/0/elements'],
  ['actions hold interactive elements only', [actions(mrkdwn('text'))], '/blocks/0/elements/0/type'],
  ['image needs alt_text', [{ type: 'image', image_url: 'https://example.com/a.png' }], '/blocks/0/alt_text'],
  ['image_url ≤ 3000', [{ type: 'image', image_url: `https://example.com/${x(3000)}`, alt_text: 'a' }], '/blocks/0/image_url'],
  ['unknown block type', [{ type: 'table' }], '/blocks/0/type'],
  ['select option text ≤ 75', [{ type: 'section', text: mrkdwn('pick'), accessory: { type: 'static_select', action_id: 's', placeholder: plain('Pick'), options: [{ text: plain(x(76)), value: 'a' }] } }], '/blocks/0/accessory/options/0/text/text'],
  ['select placeholder ≤ 150', [{ type: 'section', text: mrkdwn('pick'), accessory: { type: 'static_select', action_id: 's', placeholder: plain(x(151)), options: [{ text: plain('A'), value: 'a' }] } }], '/blocks/0/accessory/placeholder/text'],
];

const input = (element: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'input', block_id: 'in', label: plain('Reason'), element, ...extra });
const textInput = (extra: Record<string, unknown> = {}) => ({ type: 'plain_text_input', action_id: 'text', ...extra });
const modal = (extra: Record<string, unknown> = {}) => ({ type: 'modal', callback_id: 'cb', title: plain('Waive'), submit: plain('Ask'), close: plain('Cancel'), blocks: [input(textInput())], ...extra });

const modalCases: Array<[string, Record<string, unknown>, string]> = [
  ['a modal with inputs needs submit', (({ submit: _s, ...rest }) => rest)(modal()), '/view/submit'],
  ['placeholder ≤ 150', modal({ blocks: [input(textInput({ placeholder: plain(x(151)) }))] }), '/view/blocks/0/element/placeholder/text'],
  ['placeholder must be plain_text', modal({ blocks: [input(textInput({ placeholder: mrkdwn('why') }))] }), '/view/blocks/0/element/placeholder/type'],
  ['hint ≤ 2000', modal({ blocks: [input(textInput(), { hint: plain(x(2001)) })] }), '/view/blocks/0/hint/text'],
  ['hint must be plain_text', modal({ blocks: [input(textInput(), { hint: mrkdwn('h') })] }), '/view/blocks/0/hint/type'],
  ['label ≤ 2000', modal({ blocks: [input(textInput(), { label: plain(x(2001)) })] }), '/view/blocks/0/label/text'],
  ['label must be plain_text', modal({ blocks: [input(textInput(), { label: mrkdwn('Reason') })] }), '/view/blocks/0/label/type'],
  ['max_length ≥ 1', modal({ blocks: [input(textInput({ max_length: 0 }))] }), '/view/blocks/0/element/max_length'],
  ['max_length ≤ 3000', modal({ blocks: [input(textInput({ max_length: 3001 }))] }), '/view/blocks/0/element/max_length'],
  ['min_length ≤ 3000', modal({ blocks: [input(textInput({ min_length: 3001 }))] }), '/view/blocks/0/element/min_length'],
  ['external_id ≤ 255', modal({ external_id: x(256) }), '/view/external_id'],
  ['title ≤ 24', modal({ title: plain(x(25)) }), '/view/title/text'],
  ['title must be plain_text', modal({ title: mrkdwn('Waive') }), '/view/title/type'],
  ['submit ≤ 24', modal({ submit: plain(x(25)) }), '/view/submit/text'],
  ['close ≤ 24', modal({ close: plain(x(25)) }), '/view/close/text'],
  ['a modal holds at most 100 blocks', modal({ blocks: Array.from({ length: 101 }, () => section()) }), '/view/blocks'],
  ['private_metadata ≤ 3000', modal({ private_metadata: x(3001) }), '/view/private_metadata'],
  ['callback_id ≤ 255', modal({ callback_id: x(256) }), '/view/callback_id'],
  ['datepicker initial_date is YYYY-MM-DD', modal({ blocks: [input({ type: 'datepicker', action_id: 'd', initial_date: '12/01/2026' })] }), '/view/blocks/0/element/initial_date'],
];

describe('fake Slack refuses what Slack refuses', () => {
  it('accepts the valid baselines the cases below break one limit of', async () => {
    const posted = await call('chat.postMessage', {
      channel: 'C0LIMITS', text: 'ok',
      blocks: [{ type: 'header', text: plain(x(150)) }, section(x(3000)), actions(button({ confirm: confirm(), url: 'https://example.com', accessibility_label: x(75) }))],
    });
    expect(posted).toMatchObject({ ok: true });
    const opened = await call('views.open', { trigger_id: 'expired', view: modal() });
    expect(opened.error).toBe('expired_trigger_id'); // the view itself passed: only the trigger is refused
  });

  it.each(messageCases)('chat.postMessage: %s', async (_name, blocks, pointer) => {
    const answer = await call('chat.postMessage', { channel: 'C0LIMITS', text: 'fallback', blocks });
    expect(answer.ok).toBe(false);
    expect(answer.error).toBe('invalid_blocks');
    expect(answer.response_metadata.messages.join('\n')).toContain(`[json-pointer:${pointer}]`);
  });

  it('chat.update checks blocks the same way', async () => {
    const posted = await call('chat.postMessage', { channel: 'C0LIMITS', text: 'card' });
    const answer = await call('chat.update', { channel: 'C0LIMITS', ts: posted.ts, text: 'card', blocks: [section(x(3001))] });
    expect(answer).toMatchObject({ ok: false, error: 'invalid_blocks' });
  });

  it.each(modalCases)('views.open: %s', async (_name, view, pointer) => {
    const answer = await call('views.open', { trigger_id: 'expired', view });
    expect(answer.ok).toBe(false);
    expect(answer.error).toBe('invalid_arguments');
    expect(answer.response_metadata.messages.join('\n')).toContain(`[json-pointer:${pointer}]`);
  });

  it('refuses a top-level text over 40,000 characters with msg_too_long, and warns over 4,000', async () => {
    expect(await call('chat.postMessage', { channel: 'C0LIMITS', text: x(40_001) })).toMatchObject({ ok: false, error: 'msg_too_long' });
    const before = slack.warnings.length;
    expect(await call('chat.postMessage', { channel: 'C0LIMITS', text: x(4_001) })).toMatchObject({ ok: true });
    expect(slack.warnings.slice(before)).toEqual([expect.stringContaining('4001 characters')]);
    expect(warnings.at(-1)).toContain('fake Slack warning');
    expect(slack.calls.at(-1)?.warnings).toHaveLength(1);
    const quiet = slack.warnings.length;
    expect(await call('chat.postMessage', { channel: 'C0LIMITS', text: x(4_000) })).toMatchObject({ ok: true });
    expect(slack.warnings.length).toBe(quiet);
  });
});
