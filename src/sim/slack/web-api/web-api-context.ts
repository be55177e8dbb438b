import type { FakeMessage } from '../conversation-types.js';
import type { InteractionTokens } from '../interaction-tokens.js';
import type { SlackArgs } from '../parse-slack-body.js';
import type { SlackConversation } from '../slack-conversation.js';
import type { TokenAccess } from './token-scopes.js';

/** The fake workspace's fixed facts: who the bot is, and the directory users.info & co. answer from. */
export interface Workspace {
  teamId: string;
  teamDomain: string;
  appId: string;
  botUserId: string;
  botId: string;
  botName: string;
  /** usergroups.users.list answers from here (user-group id → member user ids). */
  userGroups: Map<string, string[]>;
  /** users.info answers from here; unknown ids get a generated profile. */
  userNames: Map<string, string>;
  /** conversations.info and slash commands' channel_name; unknown ids get a name derived from the id. */
  channelNames: Map<string, string>;
  /** The bot token's scopes and the conversations it is in (token-scopes.ts). */
  access: TokenAccess;
}

export interface WebApiContext {
  conversation: SlackConversation;
  tokens: InteractionTokens;
  workspace: Workspace;
  baseUrl: string;
  clock: () => number;
  /** Monotonic counter for generated ids (block_id, view id, file id). */
  nextId: () => number;
  /** Notes something real Slack accepts but handles badly (the fake logs it and records it on the call). */
  warn: (warning: string) => void;
}

/** A Web API method: arguments in, JSON answer out (always HTTP 200; `ok: false` carries the error). */
export type WebApiHandler = (args: SlackArgs, ctx: WebApiContext) => Record<string, unknown>;

export function failure(error: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ok: false, error, ...extra };
}

/** `invalid_blocks` with the problems listed the way Slack lists them. */
export function invalidBlocks(problems: string[]): Record<string, unknown> {
  return failure('invalid_blocks', { errors: problems, response_metadata: { messages: problems } });
}

export function channelName(workspace: Workspace, channel: string): string {
  return workspace.channelNames.get(channel) ?? channel.toLowerCase();
}

export function userName(workspace: Workspace, user: string): string {
  return workspace.userNames.get(user) ?? user.toLowerCase();
}

/**
 * A message the way Slack returns it from chat.postMessage/update and puts it in block_actions payloads. Message
 * metadata is only shown when asked for (`include_all_metadata` on conversations.history/replies).
 */
export function toApiMessage(message: FakeMessage, workspace: Workspace, opts: { includeMetadata?: boolean } = {}): Record<string, unknown> {
  const isBot = message.user === workspace.botUserId;
  return {
    type: 'message',
    ...(isBot ? { subtype: 'bot_message', bot_id: workspace.botId, app_id: workspace.appId } : {}),
    text: message.text,
    user: message.user,
    ts: message.ts,
    team: workspace.teamId,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.blocks ? { blocks: message.blocks } : {}),
    ...(message.attachments ? { attachments: message.attachments } : {}),
    ...(message.editedAt !== undefined ? { edited: { user: message.user, ts: message.versions.at(-1)?.at } } : {}),
    ...(message.files.length > 0 ? { files: message.files.map((file) => ({ id: file.id, name: file.name })) } : {}),
    ...(opts.includeMetadata && message.metadata !== undefined ? { metadata: message.metadata } : {}),
  };
}
