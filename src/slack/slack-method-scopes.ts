/**
 * The Slack Web API methods the product calls (bot token) and the scope each needs, from each method's page
 * (https://api.slack.com/methods/<method>, "Required scopes"). Conversation reads need the scope of the
 * conversation's type: the bot reads back its own posts in C… channels, G… private channels and D… DMs, which
 * clusters.yaml accepts. manifest.yml's scopes are exactly these plus `commands` (the slash command); test/unit/manifest-scopes.test.ts derives the methods from the
 * code and holds both to this table. doctor compares the token's granted scopes (x-oauth-scopes) with it.
 */
export const SLACK_METHOD_SCOPES: Record<string, string[]> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write', 'chat:write.public'],
  'chat.update': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'conversations.history': ['channels:history', 'groups:history', 'im:history'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history'],
  // doctor: whether the bot is a member of each configured channel.
  'conversations.info': ['channels:read', 'groups:read'],
  'usergroups.users.list': ['usergroups:read'],
  // files.uploadV2 = files.getUploadURLExternal + files.completeUploadExternal.
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  'views.open': [],
  // People's names in the exported timeline.
  'users.info': ['users:read'],
};

/** Scopes the app needs that no Web API method call needs. */
export const SCOPES_WITHOUT_METHODS = ['commands'];

export function neededBotScopes(): string[] {
  return [...new Set([...SCOPES_WITHOUT_METHODS, ...Object.values(SLACK_METHOD_SCOPES).flat()])].sort();
}
