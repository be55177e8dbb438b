import type { WebClient } from '@slack/web-api';
import type { ClustersConfig } from '../config/clusters-config.js';
import { failed, notChecked, passed, type DoctorCheck } from '../ports/doctor-check.js';
import { neededBotScopes } from '../slack/slack-method-scopes.js';

/**
 * doctor's Slack checks with the bot token: auth.test (a network error is told apart from a token Slack rejects),
 * the granted scopes (x-oauth-scopes, which @slack/web-api reads into response_metadata.scopes) against what the
 * product's methods need, the bot a member of every configured channel, every configured user group resolvable.
 */
const errorOf = (error: unknown): string | undefined => (error as { data?: { error?: string } } | null)?.data?.error;
const isNetwork = (error: unknown) => (error as { code?: string } | null)?.code === 'slack_webapi_request_error';

export const SLACK_TOKEN_FIX = 'set SLACK_BOT_TOKEN to the app\'s Bot User OAuth Token (xoxb-…, under OAuth & Permissions at api.slack.com/apps), reinstalling the app if it was revoked';

export function slackUnreachable(apiUrl: string | undefined, error: unknown): DoctorCheck {
  const original = (error as { original?: { code?: string; message?: string; cause?: { code?: string } } } | null)?.original;
  return failed('slack', 'slack.auth', `Slack is unreachable at ${apiUrl ?? 'https://slack.com/api/'} (network error: ${original?.cause?.code ?? original?.code ?? original?.message ?? (error as Error).message})`,
    `let the bot reach ${apiUrl ?? 'slack.com'} over HTTPS (egress, proxy${apiUrl ? ', SLACK_API_URL' : ''}); the token was not checked`);
}

export async function slackAuthCheck(client: WebClient, apiUrl: string | undefined): Promise<{ check: DoctorCheck; scopes?: string[] }> {
  try {
    const auth = await client.auth.test();
    return { scopes: auth.response_metadata?.scopes, check: passed('slack', 'slack.auth', `the token is bot @${auth.user} (${auth.user_id}) in ${auth.team} (${auth.team_id})`) };
  } catch (error) {
    if (isNetwork(error)) return { check: slackUnreachable(apiUrl, error) };
    return { check: failed('slack', 'slack.auth', `Slack rejected SLACK_BOT_TOKEN (${errorOf(error) ?? (error as Error).message})`, SLACK_TOKEN_FIX) };
  }
}

export async function slackChecks(client: WebClient, config: ClustersConfig, apiUrl: string | undefined): Promise<DoctorCheck[]> {
  const { check, scopes } = await slackAuthCheck(client, apiUrl);
  if (check.ok !== true) return [check];
  const checks = [check];
  if (!scopes) checks.push(notChecked('slack', 'slack.scopes', 'Slack sent no x-oauth-scopes header'));
  else {
    const missing = neededBotScopes().filter((scope) => !scopes.includes(scope));
    checks.push(missing.length === 0
      ? passed('slack', 'slack.scopes', `every scope the bot uses is granted (${neededBotScopes().length})`)
      : failed('slack', 'slack.scopes', `the token lacks ${missing.join(', ')}`, `add ${missing.join(', ')} under OAuth & Permissions → Bot Token Scopes (manifest.yml lists them), then reinstall the app to the workspace`, missing));
  }
  const channels = [...new Set(config.clusters.flatMap((c) => c.channels))];
  for (const channel of channels) {
    const id = `slack.channel.${channel}`;
    if (channel.startsWith('D')) {
      checks.push(notChecked('slack', id, 'a direct message: Slack does not report membership of DMs'));
      continue;
    }
    try {
      const info = await client.conversations.info({ channel });
      const name = info.channel?.name ? `#${info.channel.name}` : channel;
      checks.push(info.channel?.is_member
        ? passed('slack', id, `the bot is a member of ${name}`)
        : failed('slack', id, `the bot is not a member of ${name} (${channel})`, `invite it: /invite @${check.detail.match(/@(\S+)/)?.[1] ?? 'eks-upgrade'} in ${name}`, [channel]));
    } catch (error) {
      const code = errorOf(error);
      checks.push(code === 'missing_scope'
        ? notChecked('slack', id, 'conversations.info needs channels:read / groups:read, which the token lacks')
        : failed('slack', id, `Slack does not know channel ${channel} (${code ?? (error as Error).message})`, `fix the channel ID ${channel} in clusters.yaml (channel details → About → Channel ID), or invite the bot to that private channel`, [channel]));
    }
  }
  const groups = [...new Set(config.clusters.flatMap((c) => [...c.requesters, ...c.approvers]).filter((id) => id.startsWith('S')))];
  for (const group of groups) {
    const id = `slack.usergroup.${group}`;
    try {
      const members = await client.usergroups.users.list({ usergroup: group });
      checks.push(passed('slack', id, `user group ${group} resolves to ${members.users?.length ?? 0} member(s)`));
    } catch (error) {
      const code = errorOf(error);
      checks.push(code === 'missing_scope'
        ? notChecked('slack', id, 'usergroups.users.list needs usergroups:read, which the token lacks')
        : failed('slack', id, `user group ${group} does not resolve (${code ?? (error as Error).message})`, `fix the user-group ID ${group} in clusters.yaml (Slack: People → User groups → the group → ⋯ → Copy group ID)`, [group]));
    }
  }
  return checks;
}
