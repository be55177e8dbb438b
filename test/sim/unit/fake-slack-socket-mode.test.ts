import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeSlack, type FakeSlack } from '../../../src/sim/slack/fake-slack.js';

/** The fake's Socket Mode, as Slack describes it (https://api.slack.com/apis/connections/socket-implement). */
let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack({ signingSecret: 'socket-mode-secret', socketMode: true, ackTimeoutMs: 3_000 });
});
afterAll(async () => fake?.close());

async function open(token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${fake.apiUrl}apps.connections.open`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  return (await response.json()) as Record<string, unknown>;
}

function connect(url: string): Promise<{ ws: WebSocket; messages: Array<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const messages: Array<Record<string, unknown>> = [];
    ws.on('message', (data) => {
      messages.push(JSON.parse(String(data)) as Record<string, unknown>);
      if (messages.length === 1) resolve({ ws, messages });
    });
    ws.once('error', reject);
  });
}

describe('fake Slack Socket Mode', () => {
  it('apps.connections.open wants an app-level token', async () => {
    expect(await open('xoxb-bot-token')).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await open('nonsense')).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await open('xapp-1-A0FAKEAPP-1-abc')).toMatchObject({ ok: true, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[\w-]+&app_id=A0FAKEAPP$/) });
  });

  it('greets with hello, sends envelopes that are acked by envelope_id, and refreshes with disconnect', async () => {
    const { url } = (await open('xapp-1-A0FAKEAPP-1-abc')) as { url: string };
    const { ws, messages } = await connect(url);
    expect(messages[0]).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0FAKEAPP' } });
    // A ticket is good for one connection only.
    await expect(connect(url)).rejects.toThrow(/401/);

    ws.on('message', (data) => {
      const envelope = JSON.parse(String(data)) as { envelope_id?: string; type: string };
      if (envelope.envelope_id) ws.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { text: 'got it' } }));
    });
    const result = await fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' });
    expect(result.status).toBe(200);
    const envelope = messages.find((m) => m.type === 'slash_commands')!;
    expect(envelope).toMatchObject({ envelope_id: expect.any(String), accepts_response_payload: true, retry_attempt: 0, payload: { command: '/eks-upgrade', text: 'help', user_id: 'U0REQ' } });
    expect(fake.ephemerals('U0REQ').at(-1)?.text).toBe('got it');

    fake.socketMode.disconnect('refresh_requested', 50);
    await new Promise<void>((resolve) => ws.once('close', () => resolve()));
    expect(messages.at(-1)).toMatchObject({ type: 'disconnect', reason: 'refresh_requested' });
    // Nothing is connected now: a delivery fails as Slack's would.
    expect((await fake.sendSlashCommand({ text: 'help', userId: 'U0REQ', channelId: 'C0DEMO' })).body).toBe('dispatch_failed');
  });
});
