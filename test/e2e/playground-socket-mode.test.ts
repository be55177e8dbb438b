import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlayground, type Playground } from '../../src/playground/start-playground.js';
import { deleteKeys, redisUrl } from '../support/redis-url.js';

/** Issue 25 item 5: `npm run playground -- --socket-mode` runs the bot over Socket Mode; the page works the same. */
let playground: Playground;

beforeAll(async () => {
  playground = await startPlayground({ scenario: 'demo', speed: 60, port: 0, host: '127.0.0.1', redisUrl, socketMode: true });
});
afterAll(async () => {
  await playground?.close();
  if (playground) await deleteKeys(`${playground.queuePrefix}:*`);
});

describe('playground --socket-mode', () => {
  it('answers what the page sends over the bot\'s WebSocket', async () => {
    expect(playground.fake.okCalls('apps.connections.open')).toHaveLength(1);
    expect(playground.fake.socketMode.openConnections).toBe(1);
    // What the page's composer does: POST /client/command on the local Slack.
    const response = await fetch(`${playground.fake.url}/client/command`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'U0ALICE', channelId: 'C0PLAYGRND', text: 'help' }) });
    expect(response.status).toBe(200);
    await playground.fake.waitFor((f) => f.ephemerals('U0ALICE').find((e) => /status/.test(e.text)), { timeoutMs: 20_000 });
    expect(playground.fake.deliveries.at(-1)).toMatchObject({ kind: 'slash_command', status: 200 });
  });
});
