import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postToResponseUrl } from '../../jobs/slash-commands/slash-command-queue.js';

/**
 * A worker's answer to a handed-off command goes to the command's response_url as Slack documents it: a JSON POST,
 * taken with 200, refused with 404 and a reason once used up or expired. Against a real HTTP server.
 */
interface Received {
  method: string;
  contentType: string | undefined;
  body: string;
  socket: unknown;
}

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(answer: (received: Received) => { status: number; body: string }): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry = { method: req.method ?? '', contentType: req.headers['content-type'], body, socket: req.socket };
      received.push(entry);
      const { status, body: text } = answer(entry);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/response/T0/1/abc`, received };
}

describe('postToResponseUrl', () => {
  it('posts the reply as JSON, and two answers go over one kept-alive connection', async () => {
    const { url, received } = await serve(() => ({ status: 200, body: 'ok' }));
    await postToResponseUrl(url, { response_type: 'ephemeral', text: 'demo is at 1.30' });
    await postToResponseUrl(url, { response_type: 'ephemeral', text: 'and still is' });
    expect(received.map((r) => [r.method, r.contentType, JSON.parse(r.body).text])).toEqual([
      ['POST', 'application/json; charset=utf-8', 'demo is at 1.30'],
      ['POST', 'application/json; charset=utf-8', 'and still is'],
    ]);
    expect(received[1].socket).toBe(received[0].socket);
  });

  it("names Slack's refusal of a used-up URL with its status and reason", async () => {
    const { url } = await serve(() => ({ status: 404, body: 'used_url' }));
    await expect(postToResponseUrl(url, { text: 'late' })).rejects.toThrow('Slack refused the reply to a slash command (HTTP 404: used_url)');
  });

  it('keeps only the start of a long refusal', async () => {
    const { url } = await serve(() => ({ status: 500, body: 'x'.repeat(100_000) }));
    const error = await postToResponseUrl(url, { text: 'hi' }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(`Slack refused the reply to a slash command (HTTP 500: ${'x'.repeat(200)})`);
  });

  it('refuses a URL that is not http(s) without sending anything', async () => {
    await expect(postToResponseUrl('file:///etc/passwd', { text: 'hi' })).rejects.toThrow('a response_url must be an http(s) URL, not file:');
  });
});
