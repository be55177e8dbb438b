import { describe, expect, it } from 'vitest';
import {
  flagArg,
  parseSlackApiBody,
  parseUploadBody,
  SlackBodyError,
} from '../../../src/sim/slack/parse-slack-body.js';

const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'a & b = c' } }];

describe('parsing Slack Web API bodies', () => {
  it('decodes form bodies with blocks as a JSON string, the way @slack/web-api sends them', async () => {
    const form = new URLSearchParams({ channel: 'C0DEMO', text: 'hi & bye', blocks: JSON.stringify(blocks), reply_broadcast: 'false' });
    const args = await parseSlackApiBody('application/x-www-form-urlencoded', Buffer.from(form.toString()));
    expect(args).toEqual({ channel: 'C0DEMO', text: 'hi & bye', blocks, reply_broadcast: 'false' });
    expect(flagArg(args.reply_broadcast)).toBe(false);
  });

  it('accepts JSON bodies with real arrays, and JSON bodies that still carry blocks as a string', async () => {
    const json = await parseSlackApiBody('application/json; charset=utf-8', Buffer.from(JSON.stringify({ channel: 'C1', blocks, reply_broadcast: true })));
    expect(json).toEqual({ channel: 'C1', blocks, reply_broadcast: true });
    expect(flagArg(json.reply_broadcast)).toBe(true);
    const stringly = await parseSlackApiBody('application/json', Buffer.from(JSON.stringify({ blocks: JSON.stringify(blocks) })));
    expect(stringly.blocks).toEqual(blocks);
  });

  it('decodes view and files arguments, and leaves comma-separated user lists alone', async () => {
    const form = new URLSearchParams({
      view: JSON.stringify({ type: 'modal', title: { type: 'plain_text', text: 'Force' } }),
      files: JSON.stringify([{ id: 'F1', title: 'timeline' }]),
      users: 'U1,U2',
    });
    const args = await parseSlackApiBody('application/x-www-form-urlencoded', Buffer.from(form.toString()));
    expect(args.view).toEqual({ type: 'modal', title: { type: 'plain_text', text: 'Force' } });
    expect(args.files).toEqual([{ id: 'F1', title: 'timeline' }]);
    expect(args.users).toBe('U1,U2');
  });

  it('answers malformed JSON fields with Slack\'s error names', async () => {
    const form = new URLSearchParams({ channel: 'C1', blocks: '[{"type":' });
    const error = await parseSlackApiBody('application/x-www-form-urlencoded', Buffer.from(form.toString())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlackBodyError);
    expect((error as SlackBodyError).code).toBe('invalid_blocks_format');
    const badJson = await parseSlackApiBody('application/json', Buffer.from('{nope')).catch((e: unknown) => e);
    expect((badJson as SlackBodyError).code).toBe('invalid_json');
  });

  it('treats a body without content type as form-encoded', async () => {
    expect(await parseSlackApiBody(undefined, Buffer.from('channel=C1&text=x'))).toEqual({ channel: 'C1', text: 'x' });
  });

  it('reads an uploaded file from multipart form data (filesUploadV2) or from a raw body', async () => {
    const form = new FormData();
    form.append('body', new Blob([new TextEncoder().encode('line 1\nline 2\n')]), 'timeline.md');
    const request = new Request('http://x', { method: 'POST', body: form });
    const raw = Buffer.from(await request.arrayBuffer());
    const upload = await parseUploadBody(request.headers.get('content-type') ?? undefined, raw);
    expect(upload.content.toString()).toBe('line 1\nline 2\n');
    expect(upload.filename).toBe('timeline.md');
    const plain = await parseUploadBody('application/octet-stream', Buffer.from('raw bytes'));
    expect(plain.content.toString()).toBe('raw bytes');
  });
});
