import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel, type BlockAction, type ButtonAction, type Logger } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildSlashCommandBody, type FakeSlack, startFakeSlack } from '@eks-upgrade-bot/sim';

// A real Bolt app (HTTP receiver on an ephemeral port) driven through the fake exactly as Slack would drive it.
const SECRET = 'bolt-test-signing-secret';
let fake: FakeSlack;
let app: App;
const handled: string[] = [];
const clicks: BlockAction<ButtonAction>[] = [];
/** Errors Bolt logged (a listener failing after ack): asserted, not printed. */
const boltErrors: string[] = [];
const logger: Logger = {
  debug: () => {}, info: () => {}, warn: () => {},
  error: (...messages: unknown[]) => { boltErrors.push(messages.map(String).join(' ')); },
  setLevel: () => {}, getLevel: () => LogLevel.ERROR, setName: () => {},
};

const gateBlocks = (revision: number) => [
  { type: 'section', text: { type: 'mrkdwn', text: '*Gate:* upgrade the control plane of demo to 1.31?' } },
  {
    type: 'actions',
    block_id: `gate:job1:g1:${revision}`,
    elements: [
      { type: 'button', action_id: 'gate:continue', style: 'primary', value: JSON.stringify({ jobId: 'job1', gateId: 'g1', revision }), text: { type: 'plain_text', text: 'Continue' } },
      { type: 'button', action_id: 'gate:force', style: 'danger', value: 'force', text: { type: 'plain_text', text: 'Force' } },
    ],
  },
];

beforeEach(async () => {
  handled.length = 0;
  clicks.length = 0;
  boltErrors.length = 0;
  fake = await startFakeSlack({ signingSecret: SECRET });
  app = new App({
    token: 'xoxb-bolt-test',
    signingSecret: SECRET,
    logger,
    clientOptions: { slackApiUrl: fake.apiUrl, retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 20 } },
  });
  app.command('/eks-upgrade', async ({ command, ack, respond, client }) => {
    handled.push(command.text);
    if (command.text === 'help') {
      await ack('Usage: /eks-upgrade status &lt;cluster&gt;');
      return;
    }
    await ack();
    if (command.text === 'gate') {
      const card = await client.chat.postMessage({ channel: command.channel_id, text: 'Upgrade demo', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'Upgrade demo' } }] });
      await client.chat.postMessage({ channel: command.channel_id, thread_ts: card.ts, text: 'Gate', blocks: gateBlocks(1) as never });
      return;
    }
    await respond(`demo: control plane 1.30 (you asked "${command.text}")`);
  });
  app.action<BlockAction<ButtonAction>>('gate:continue', async ({ ack, body, client, respond }) => {
    await ack();
    clicks.push(body);
    await client.chat.update({
      channel: body.channel!.id, ts: body.message!.ts,
      text: `Approved by <@${body.user.id}>`, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `Approved by <@${body.user.id}>` } }],
    });
    await respond({ text: 'Thanks, the upgrade continues.' });
  });
  app.action<BlockAction<ButtonAction>>('gate:force', async ({ ack, body, client }) => {
    await ack();
    await client.views.open({
      trigger_id: body.trigger_id,
      view: {
        type: 'modal', callback_id: 'force', private_metadata: 'job1',
        title: { type: 'plain_text', text: 'Force the drain' },
        submit: { type: 'plain_text', text: 'Force' },
        blocks: [{ type: 'input', block_id: 'reason', label: { type: 'plain_text', text: 'Reason' }, element: { type: 'plain_text_input', action_id: 'text' } }],
      },
    });
  });
  app.view('force', async ({ ack, view }) => {
    const reason = view.state.values.reason.text.value ?? '';
    if (reason.length < 10) {
      await ack({ response_action: 'errors', errors: { reason: 'Say why in at least 10 characters.' } });
      return;
    }
    handled.push(`force:${view.private_metadata}:${reason}`);
    await ack();
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  fake.setBotEventsUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`);
});

afterEach(async () => {
  expect(boltErrors).toEqual([]);
  await app.stop();
  await fake.close();
});

describe('fake Slack driving a real Bolt app', () => {
  it('delivers a signed slash command that Bolt accepts; the ack and the respond() show up as ephemerals', async () => {
    const result = await fake.sendSlashCommand({ text: 'status demo', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(result.status).toBe(200);
    expect(result.ackMs).toBeLessThan(3000);
    expect(result.responseUrl).toMatch(new RegExp(`^${fake.url}/response/`));
    expect(handled).toEqual(['status demo']);
    const answer = await fake.waitFor((f) => f.ephemerals('U0REQ')[0]);
    expect(answer).toMatchObject({ channel: 'C0DEMO', source: 'response_url', text: 'demo: control plane 1.30 (you asked "status demo")' });
    expect(fake.calls.find((c) => c.method === 'response_url')).toMatchObject({ status: 200, ok: true });

    await fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(fake.ephemerals('U0REQ').map((e) => [e.source, e.text])).toEqual([
      ['response_url', 'demo: control plane 1.30 (you asked "status demo")'],
      ['ack', 'Usage: /eks-upgrade status &lt;cluster&gt;'],
    ]);
    expect(fake.renderConversation()).toMatchInlineSnapshot(`
      "> /eks-upgrade status demo  — @U0REQ
      eks-upgrade → @U0REQ (only visible to you):
        demo: control plane 1.30 (you asked "status demo")
      > /eks-upgrade help  — @U0REQ
      eks-upgrade → @U0REQ (only visible to you):
        Usage: /eks-upgrade status <cluster>"
    `);
  });

  it('has its forged and stale (over 5 minutes old) signatures refused with 401, and nothing happens', async () => {
    const body = buildSlashCommandBody({
      teamId: 'T0FAKE', teamDomain: 'fake', channelId: 'C0DEMO', channelName: 'c0demo', userId: 'U0EVIL', userName: 'evil',
      command: '/eks-upgrade', text: 'start demo --to 1.31', apiAppId: 'A0FAKEAPP', responseUrl: `${fake.url}/response/x`, triggerId: '1.2.3',
    });
    const forged = await fake.sendRaw({ body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...fake.signRequest(`${body}&text=tampered`) } });
    const stale = await fake.sendRaw({
      body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...fake.signRequest(body, Math.floor(Date.now() / 1000) - 301) },
    });
    const unsigned = await fake.sendRaw({ body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const good = await fake.sendRaw({ body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...fake.signRequest(body) } });
    expect([forged.status, stale.status, unsigned.status, good.status]).toEqual([401, 401, 401, 200]);
    expect(handled).toEqual(['start demo --to 1.31']);
    expect(fake.deliveries.map((d) => d.status)).toEqual([401, 401, 401, 200]);
    // The accepted one answers through a response_url the fake never issued: refused like an expired one.
    const respond = await fake.waitFor((f) => f.calls.find((c) => c.method === 'response_url'));
    expect(respond).toMatchObject({ status: 404, ok: false, error: 'expired_url' });
    expect(fake.ephemerals()).toEqual([]);
    await expect.poll(() => boltErrors.join('\n')).toMatch(/Failed to respond to the response_url: 404/);
    boltErrors.length = 0;
  });

  it('builds a block_actions click from the posted message\'s blocks; the action handler gets them and edits the card', async () => {
    await fake.sendSlashCommand({ text: 'gate', userId: 'U0REQ', channelId: 'C0DEMO' });
    const gate = await fake.waitFor((f) => f.messages('C0DEMO')[0]?.replies[0]);
    const result = await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: gate.ts, text: 'Continue' });
    expect(result.status).toBe(200);
    expect(clicks).toHaveLength(1);
    const [click] = clicks;
    expect(click.actions[0]).toMatchObject({
      action_id: 'gate:continue', block_id: 'gate:job1:g1:1', value: '{"jobId":"job1","gateId":"g1","revision":1}', type: 'button',
    });
    expect(click).toMatchObject({
      type: 'block_actions', user: { id: 'U0APP' }, channel: { id: 'C0DEMO' },
      container: { type: 'message', message_ts: gate.ts, channel_id: 'C0DEMO', is_ephemeral: false, thread_ts: gate.threadTs },
      message: { ts: gate.ts, thread_ts: gate.threadTs },
    });
    await fake.waitFor((f) => f.ephemerals('U0APP').length === 1);
    expect(gate.text).toBe('Approved by <@U0APP>');
    // The card no longer has buttons: a second click cannot be built from the current message.
    await expect(fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: gate.ts, text: 'Continue' })).rejects.toThrow(/has no button "Continue"; buttons: none/);
    // A stale client still showing the first version can click it, with the old block_id.
    await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: gate.ts, text: 'Continue', version: 0 });
    expect(clicks[1].actions[0].block_id).toBe('gate:job1:g1:1');
    await fake.waitFor((f) => f.ephemerals('U0APP').length === 2);
    expect(fake.renderConversation()).toMatchInlineSnapshot(`
      "> /eks-upgrade gate  — @U0REQ
      eks-upgrade:
        *UPGRADE DEMO*
        │ eks-upgrade (edited):
        │   Approved by @U0APP
        │ 👆 @U0APP clicked [ Continue ]
        │ eks-upgrade → @U0APP (only visible to you):
        │   Thanks, the upgrade continues.
        │ 👆 @U0APP clicked [ Continue ]
        │ eks-upgrade → @U0APP (only visible to you):
        │   Thanks, the upgrade continues."
    `);
  });

  it('opens a modal from a click (trigger_id honoured) and submits it: errors keep it open, valid input closes it', async () => {
    await fake.sendSlashCommand({ text: 'gate', userId: 'U0REQ', channelId: 'C0DEMO' });
    const gate = await fake.waitFor((f) => f.messages('C0DEMO')[0]?.replies[0]);
    await fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: gate.ts, actionId: 'gate:force' });
    const modal = await fake.waitFor((f) => f.modals()[0]);
    expect(modal).toMatchObject({ user: 'U0APP', state: 'open', channel: 'C0DEMO', threadTs: gate.threadTs });

    const refused = await fake.submitView({ userId: 'U0APP', values: { reason: 'PDB' } });
    expect(refused.errors).toEqual({ reason: 'Say why in at least 10 characters.' });
    expect(modal.state).toBe('open');
    const accepted = await fake.submitView({ userId: 'U0APP', callbackId: 'force', values: { Reason: 'orders-pdb blocks the drain' } });
    expect(accepted.status).toBe(200);
    expect(modal.state).toBe('submitted');
    expect(handled).toContain('force:job1:orders-pdb blocks the drain');
    expect(fake.renderConversation()).toMatchInlineSnapshot(`
      "> /eks-upgrade gate  — @U0REQ
      eks-upgrade:
        *UPGRADE DEMO*
        │ eks-upgrade:
        │   *Gate:* upgrade the control plane of demo to 1.31?
        │   [ Continue ](primary)  [ Force ](danger)
        │ 👆 @U0APP clicked [ Force ]
        │ 🗔 modal "Force the drain" opened for @U0APP:
        │   Reason: [ … ]
        │ 🗔 @U0APP submitted "Force the drain" (refused)
        │   Reason: PDB
        │   ⚠ reason: Say why in at least 10 characters.
        │ 🗔 @U0APP submitted "Force the drain"
        │   Reason: orders-pdb blocks the drain"
    `);
  });
});
