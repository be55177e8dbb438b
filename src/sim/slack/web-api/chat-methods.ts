/**
 * chat.postMessage / chat.update / chat.postEphemeral. Top-level `text`
 * (https://docs.slack.dev/reference/methods/chat.postMessage#truncating): Slack asks to keep it under 4,000
 * characters and truncates it beyond 40,000; the fake refuses beyond 40,000 with `msg_too_long` and logs a warning
 * beyond 4,000, so a bot's over-long fallback is noticed in tests.
 */

import { checkMessageBlocks, withGeneratedIds } from './block-kit-rules.js';
import type { FakeMessage } from '../conversation-types.js';
import { flagArg, stringArg, type SlackArgs } from '../parse-slack-body.js';
import { failure, invalidBlocks, toApiMessage, type WebApiContext, type WebApiHandler } from './web-api-context.js';

const MAX_TEXT = 40_000;
const RECOMMENDED_TEXT = 4_000;

/** The top-level `text` check every way of posting shares: the error to answer, or undefined (maybe with a warning). */
export function checkTopLevelText(text: string, warn: (warning: string) => void, where: string): string | undefined {
  if (text.length > MAX_TEXT) return 'msg_too_long';
  if (text.length > RECOMMENDED_TEXT) warn(`${where}: top-level text of ${text.length} characters (Slack asks for at most ${RECOMMENDED_TEXT})`);
  return undefined;
}

interface Content {
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
}

/** Validates the content arguments of a post or update; the error answer, or the normalised content. */
function readContent(args: SlackArgs, ctx: WebApiContext, requireSome: boolean): Content | Record<string, unknown> {
  const text = stringArg(args.text) ?? '';
  if (args.blocks !== undefined) {
    const problems = checkMessageBlocks(args.blocks);
    if (problems.length > 0) return invalidBlocks(problems);
  }
  if (args.attachments !== undefined && !Array.isArray(args.attachments)) return failure('invalid_attachments');
  const blocks = args.blocks as unknown[] | undefined;
  const attachments = args.attachments as unknown[] | undefined;
  if (requireSome && text === '' && !blocks?.length && !attachments?.length) return failure('no_text');
  const tooLong = checkTopLevelText(text, ctx.warn, `${stringArg(args.channel) ?? 'no channel'}`);
  if (tooLong) return failure(tooLong);
  return { text, blocks: withGeneratedIds(blocks, ctx.nextId), attachments };
}

const isFailure = (value: Content | Record<string, unknown>): value is Record<string, unknown> => 'ok' in value;

/**
 * The parent of a thread_ts: replying to a reply lands in the parent's thread, as in Slack. The fake is stricter
 * than Slack about unknown parents (`thread_not_found`) so a bot that loses track of its thread is noticed.
 */
export function resolveThread(ctx: WebApiContext, channel: string, threadTs: string | undefined):
  { threadTs?: string } | { error: string } {
  if (!threadTs) return {};
  const parent = ctx.conversation.findMessage(channel, threadTs);
  if (!parent || parent.deleted) return { error: 'thread_not_found' };
  return { threadTs: parent.threadTs ?? parent.ts };
}

/**
 * Message metadata as Slack takes it: `{ event_type, event_payload }`, event_payload an object. Anything else is
 * refused rather than stored, so a bot that sends the wrong shape finds out here instead of in production.
 */
function metadataProblem(metadata: unknown): string | undefined {
  if (metadata === undefined) return undefined;
  const m = metadata as { event_type?: unknown; event_payload?: unknown };
  const payloadOk = typeof m?.event_payload === 'object' && m.event_payload !== null && !Array.isArray(m.event_payload);
  if (typeof metadata !== 'object' || metadata === null || typeof m.event_type !== 'string' || m.event_type === '' || !payloadOk) {
    return 'invalid_metadata_format';
  }
  return undefined;
}

const postMessage: WebApiHandler = (args, ctx) => {
  const channel = stringArg(args.channel);
  if (!channel) return failure('channel_not_found');
  const content = readContent(args, ctx, true);
  if (isFailure(content)) return content;
  const badMetadata = metadataProblem(args.metadata);
  if (badMetadata) return failure(badMetadata);
  const thread = resolveThread(ctx, channel, stringArg(args.thread_ts));
  if ('error' in thread) return failure(thread.error);
  const message = ctx.conversation.postMessage({
    ...content,
    channel,
    threadTs: thread.threadTs,
    user: ctx.workspace.botUserId,
    username: stringArg(args.username),
    metadata: args.metadata,
    replyBroadcast: flagArg(args.reply_broadcast),
    source: 'chat.postMessage',
  });
  return { ok: true, channel, ts: message.ts, message: toApiMessage(message, ctx.workspace) };
};

function findEditable(ctx: WebApiContext, args: SlackArgs): { message: FakeMessage } | { error: string } {
  const channel = stringArg(args.channel);
  const ts = stringArg(args.ts);
  if (!channel) return { error: 'channel_not_found' };
  if (!ts) return { error: 'message_not_found' };
  const message = ctx.conversation.findMessage(channel, ts);
  // Ephemeral messages have a message_ts but are not messages: Slack cannot find them to edit or delete.
  if (!message || message.deleted) return { error: 'message_not_found' };
  if (message.user !== ctx.workspace.botUserId) return { error: 'cant_update_message' };
  return { message };
}

const update: WebApiHandler = (args, ctx) => {
  const found = findEditable(ctx, args);
  if ('error' in found) return failure(found.error);
  const { message } = found;
  const content = readContent(args, ctx, false);
  if (isFailure(content)) return content;
  // Slack keeps fields that are not sent: omitted blocks stay, `blocks: []` clears them.
  ctx.conversation.updateMessage(message, {
    text: args.text === undefined ? undefined : content.text,
    blocks: content.blocks,
    attachments: content.attachments,
  });
  const api = toApiMessage(message, ctx.workspace);
  return { ok: true, channel: message.channel, ts: message.ts, text: message.text, message: api };
};

const remove: WebApiHandler = (args, ctx) => {
  const found = findEditable(ctx, args);
  if ('error' in found) return failure(found.error);
  const { message } = found;
  ctx.conversation.deleteMessage(message);
  return { ok: true, channel: message.channel, ts: message.ts };
};

const postEphemeral: WebApiHandler = (args, ctx) => {
  const channel = stringArg(args.channel);
  const user = stringArg(args.user);
  if (!channel) return failure('channel_not_found');
  if (!user) return failure('user_not_found');
  const content = readContent(args, ctx, true);
  if (isFailure(content)) return content;
  const thread = resolveThread(ctx, channel, stringArg(args.thread_ts));
  const threadTs = 'error' in thread ? undefined : thread.threadTs;
  const ephemeral = ctx.conversation.postEphemeral({ ...content, channel, user, threadTs, source: 'chat.postEphemeral' });
  return { ok: true, message_ts: ephemeral.ts };
};

const addReaction: WebApiHandler = (args, ctx) => {
  const channel = stringArg(args.channel);
  const ts = stringArg(args.timestamp);
  const name = stringArg(args.name)?.replace(/^:|:$/g, '');
  if (!name) return failure('invalid_name');
  const message = channel && ts ? ctx.conversation.findMessage(channel, ts) : undefined;
  if (!message || message.deleted) return failure('message_not_found');
  if (message.reactions.includes(name)) return failure('already_reacted');
  message.reactions.push(name);
  ctx.conversation.changed();
  return { ok: true };
};

export const chatMethods: Record<string, WebApiHandler> = {
  'chat.postMessage': postMessage,
  'chat.update': update,
  'chat.delete': remove,
  'chat.postEphemeral': postEphemeral,
  'reactions.add': addReaction,
};
