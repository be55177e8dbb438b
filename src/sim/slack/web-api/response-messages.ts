import { checkMessageBlocks, withGeneratedIds } from './block-kit-rules.js';
import { checkTopLevelText } from './chat-methods.js';
import type { InteractionContext, ResponseUrlState } from '../interaction-tokens.js';
import { flagArg, stringArg } from '../parse-slack-body.js';
import type { WebApiContext } from './web-api-context.js';

/**
 * Messages an app sends back through a response_url, or as the HTTP body of its ack to a slash command (Slack treats
 * both the same way): ephemeral to the user by default, `response_type: in_channel` to post visibly,
 * `replace_original` / `delete_original` to act on the message whose button was clicked (for a slash command, on the
 * previous ephemeral answer).
 */

export interface ResponseOutcome {
  /** HTTP status Slack answers the response_url POST with. */
  status: number;
  body: string;
}

export function applyResponseMessage(
  ctx: WebApiContext,
  state: Pick<ResponseUrlState, 'context' | 'lastEphemeralTs'>,
  payload: Record<string, unknown>,
  source: 'response_url' | 'ack',
): ResponseOutcome {
  if (payload.blocks !== undefined) {
    const problems = checkMessageBlocks(payload.blocks);
    if (problems.length > 0) return { status: 400, body: 'invalid_blocks' };
  }
  const text = stringArg(payload.text) ?? '';
  // A response_url post is a message like any other: the same text limits (chat-methods.ts) hold.
  if (checkTopLevelText(text, ctx.warn, source) === 'msg_too_long') return { status: 400, body: 'msg_too_long' };
  const blocks = withGeneratedIds(payload.blocks as unknown[] | undefined, ctx.nextId);
  const attachments = Array.isArray(payload.attachments) ? payload.attachments : undefined;
  const { context } = state;

  if (flagArg(payload.delete_original)) {
    const target = findOriginal(ctx, context, state.lastEphemeralTs);
    if (!target) return { status: 404, body: 'message_not_found' };
    ctx.conversation.deleteMessage(target);
    return { status: 200, body: 'ok' };
  }
  if (flagArg(payload.replace_original)) {
    const target = findOriginal(ctx, context, state.lastEphemeralTs);
    if (target) {
      // A replacement is a whole new message: what it does not carry is gone.
      ctx.conversation.updateMessage(target, { text, blocks: blocks ?? [], attachments: attachments ?? [] });
      return { status: 200, body: 'ok' };
    }
  }
  if (!text && !blocks?.length && !attachments?.length) return { status: 400, body: 'no_text' };
  const threadTs = stringArg(payload.thread_ts) ?? context.threadTs;
  if (payload.response_type === 'in_channel') {
    ctx.conversation.postMessage({
      text, blocks, attachments, channel: context.channel, threadTs, user: ctx.workspace.botUserId, source,
    });
  } else {
    const ephemeral = ctx.conversation.postEphemeral({
      text, blocks, attachments, channel: context.channel, user: context.user, threadTs, source,
    });
    state.lastEphemeralTs = ephemeral.ts;
  }
  return { status: 200, body: 'ok' };
}

function findOriginal(ctx: WebApiContext, context: InteractionContext, lastEphemeralTs: string | undefined) {
  const origin = context.origin;
  if (origin?.kind === 'message') {
    const message = ctx.conversation.findMessage(origin.channel, origin.ts);
    return message && !message.deleted ? message : undefined;
  }
  const ephemeralTs = origin?.kind === 'ephemeral' ? origin.ts : lastEphemeralTs;
  const ephemeral = ephemeralTs ? ctx.conversation.findEphemeral(ephemeralTs) : undefined;
  return ephemeral && !ephemeral.deleted ? ephemeral : undefined;
}
