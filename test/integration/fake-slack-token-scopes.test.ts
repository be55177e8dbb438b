import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';

/**
 * The fake Slack holds the bot token to its granted scopes and its channels, as Slack does: x-oauth-scopes on every
 * answer (which @slack/web-api reads into response_metadata.scopes), missing_scope with needed/provided, and
 * not_in_channel for a conversation the bot is not in.
 */
let fake: FakeSlack | undefined;
afterEach(async () => fake?.close());

describe('the fake Slack’s token scopes and membership', () => {
  it('reports granted scopes, refuses a method whose scope is missing, and a channel the bot is not in', async () => {
    fake = await startFakeSlack({ signingSecret: 's'.repeat(32), botScopes: ['chat:write', 'channels:history', 'channels:read'], botChannels: ['C0IN'] });
    const client = new WebClient('xoxb-scoped', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    const auth = await client.auth.test();
    expect(auth.response_metadata?.scopes).toEqual(['chat:write', 'channels:history', 'channels:read']);

    await expect(client.usergroups.users.list({ usergroup: 'S0X' })).rejects.toMatchObject({ data: { error: 'missing_scope', needed: 'usergroups:read', provided: 'chat:write,channels:history,channels:read' } });
    await expect(client.files.getUploadURLExternal({ filename: 'a.md', length: 3 })).rejects.toMatchObject({ data: { error: 'missing_scope', needed: 'files:write' } });
    await expect(client.chat.postMessage({ channel: 'C0OUT', text: 'hi' })).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
    await expect(client.conversations.history({ channel: 'C0OUT' })).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
    expect((await client.chat.postMessage({ channel: 'C0IN', text: 'hi' })).ok).toBe(true);
    expect((await client.conversations.info({ channel: 'C0OUT' })).channel?.is_member).toBe(false);
    expect((await client.conversations.info({ channel: 'C0IN' })).channel?.is_member).toBe(true);
  });

  it('lets chat:write.public post to a public channel the bot has not joined', async () => {
    fake = await startFakeSlack({ signingSecret: 's'.repeat(32), botScopes: ['chat:write', 'chat:write.public'], botChannels: [] });
    const client = new WebClient('xoxb-public', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    expect((await client.chat.postMessage({ channel: 'C0PUB', text: 'hi' })).ok).toBe(true);
    await expect(client.chat.postMessage({ channel: 'G0PRIV', text: 'hi' })).rejects.toMatchObject({ data: { error: 'not_in_channel' } });
  });
});
