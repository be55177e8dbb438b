import { resolveThread } from './chat-methods.js';
import type { FakeFile } from '../conversation-types.js';
import { stringArg } from '../parse-slack-body.js';
import { failure, type WebApiContext, type WebApiHandler } from './web-api-context.js';

/**
 * Slack's external upload flow, which @slack/web-api's filesUploadV2 drives: files.getUploadURLExternal (name and
 * length → upload_url, file_id), a POST of the bytes to upload_url, then files.completeUploadExternal (file ids,
 * channel_id, thread_ts, initial_comment) which shares the files as one message.
 */

const getUploadUrl: WebApiHandler = (args, ctx) => {
  const filename = stringArg(args.filename);
  const length = Number(args.length);
  if (!filename) return failure('invalid_arguments', { response_metadata: { messages: ['filename is required'] } });
  if (!Number.isInteger(length) || length < 0) {
    return failure('invalid_arguments', { response_metadata: { messages: ['length must be a byte count'] } });
  }
  const id = `F${String(ctx.nextId()).padStart(8, '0')}`;
  const file: FakeFile = { id, name: filename, title: filename, length, text: '', lines: 0, createdAt: ctx.clock() };
  ctx.conversation.addFile(file);
  return { ok: true, upload_url: `${ctx.baseUrl}/upload/${id}`, file_id: id };
};

/** Stores the bytes POSTed to an upload_url; false when the file id was never issued. */
export function receiveUpload(ctx: WebApiContext, fileId: string, content: Buffer): boolean {
  const file = ctx.conversation.file(fileId);
  if (!file) return false;
  file.content = content;
  file.text = content.toString('utf8');
  file.lines = countLines(file.text);
  ctx.conversation.changed();
  return true;
}

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

const completeUpload: WebApiHandler = (args, ctx) => {
  const entries = Array.isArray(args.files) ? (args.files as Array<Record<string, unknown>>) : [];
  if (entries.length === 0) return failure('invalid_arguments', { response_metadata: { messages: ['files is required'] } });
  const files: FakeFile[] = [];
  for (const entry of entries) {
    const file = ctx.conversation.file(String(entry.id));
    if (!file) return failure('file_not_found');
    if (!file.content) return failure('file_upload_not_completed');
    if (typeof entry.title === 'string' && entry.title) file.title = entry.title;
    files.push(file);
  }
  const channel = stringArg(args.channel_id) ?? stringArg(args.channels);
  if (channel) {
    const thread = resolveThread(ctx, channel, stringArg(args.thread_ts));
    if ('error' in thread) return failure(thread.error);
    const message = ctx.conversation.postMessage({
      text: stringArg(args.initial_comment) ?? '',
      blocks: Array.isArray(args.blocks) ? args.blocks : undefined,
      channel,
      threadTs: thread.threadTs,
      user: ctx.workspace.botUserId,
      files,
      source: 'files.completeUploadExternal',
    });
    for (const file of files) {
      file.channel = channel;
      file.threadTs = thread.threadTs;
      file.messageTs = message.ts;
    }
  }
  return {
    ok: true,
    files: files.map((file) => ({
      id: file.id,
      name: file.name,
      title: file.title,
      size: file.content?.length ?? 0,
      url_private: `${ctx.baseUrl}/files/${file.id}/${encodeURIComponent(file.name)}`,
      ...(channel ? { channels: [channel] } : {}),
    })),
  };
};

export const filesMethods: Record<string, WebApiHandler> = {
  'files.getUploadURLExternal': getUploadUrl,
  'files.completeUploadExternal': completeUpload,
};
