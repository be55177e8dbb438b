import { stringArg, type SlackArgs } from '../parse-slack-body.js';

/**
 * What the bot token may do, as Slack decides it before a method runs: every Web API answer carries the token's
 * granted scopes in `x-oauth-scopes` (and the method's in `x-accepted-oauth-scopes`); a method whose scope was not
 * granted answers `missing_scope` with `needed` and `provided` (https://api.slack.com/authentication/oauth-v2 →
 * "Checking scopes"; https://api.slack.com/methods errors). The scope a method needs is on each method's page
 * (https://api.slack.com/methods/<method>, "Required scopes", bot token); history and info methods need the scope
 * of the conversation's type (C… channels, G… groups, D… im). A bot not in a conversation gets `not_in_channel`
 * from chat.postMessage (unless chat:write.public lets it post to a public channel) and from
 * conversations.history / replies (https://api.slack.com/methods/chat.postMessage#errors).
 */
const BY_TYPE = (kind: 'history' | 'read') => (args: SlackArgs): string | undefined => {
  const channel = stringArg(args.channel) ?? '';
  const type = channel.startsWith('G') ? 'groups' : channel.startsWith('D') ? 'im' : 'channels';
  return `${type}:${kind}`;
};

const METHOD_SCOPES: Record<string, string | ((args: SlackArgs) => string | undefined)> = {
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'chat.delete': 'chat:write',
  'conversations.history': BY_TYPE('history'),
  'conversations.replies': BY_TYPE('history'),
  'conversations.info': BY_TYPE('read'),
  'usergroups.users.list': 'usergroups:read',
  'users.info': 'users:read',
  'files.getUploadURLExternal': 'files:write',
  'files.completeUploadExternal': 'files:write',
  'files.upload': 'files:write',
  'reactions.add': 'reactions:write',
};

/** Methods that act in one conversation, and so need the bot in it. */
const IN_CHANNEL = new Set(['chat.postMessage', 'chat.update', 'conversations.history', 'conversations.replies']);

/** Scopes granted when a test names none: every scope the fake knows, so existing tests see no difference. */
export const ALL_BOT_SCOPES = ['commands', 'chat:write', 'chat:write.public', 'files:write', 'usergroups:read', 'users:read', 'channels:read', 'groups:read', 'im:read', 'channels:history', 'groups:history', 'im:history', 'reactions:write'];

export interface TokenAccess {
  /** The bot token's granted scopes. */
  scopes: string[];
  /** Conversations the bot is a member of; undefined: all of them. */
  channels?: Set<string>;
}

export function isMember(access: TokenAccess, channel: string): boolean {
  return !access.channels || access.channels.has(channel);
}

export interface ScopeVerdict {
  headers: Record<string, string>;
  error?: Record<string, unknown>;
}

export function checkTokenAccess(access: TokenAccess, botUserId: string, method: string, args: SlackArgs): ScopeVerdict {
  const rule = METHOD_SCOPES[method];
  const needed = typeof rule === 'function' ? rule(args) : rule;
  const headers: Record<string, string> = { 'x-oauth-scopes': access.scopes.join(','), 'x-accepted-oauth-scopes': needed ?? '' };
  if (needed && !access.scopes.includes(needed)) return { headers, error: { ok: false, error: 'missing_scope', needed, provided: access.scopes.join(',') } };
  const channel = stringArg(args.channel);
  if (channel && IN_CHANNEL.has(method) && !isMember(access, channel) && channel !== botUserId) {
    const publicPost = method === 'chat.postMessage' && channel.startsWith('C') && access.scopes.includes('chat:write.public');
    if (!publicPost) return { headers, error: { ok: false, error: 'not_in_channel' } };
  }
  return { headers };
}
