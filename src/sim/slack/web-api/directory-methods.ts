import { stringArg } from '../parse-slack-body.js';
import { isMember } from './token-scopes.js';
import { channelName, failure, userName, type WebApiHandler } from './web-api-context.js';

/** Identity and directory lookups: who the bot is, who a user is, what a channel is, who is in a user group. */

const authTest: WebApiHandler = (_args, ctx) => ({
  ok: true,
  url: `https://${ctx.workspace.teamDomain}.slack.com/`,
  team: ctx.workspace.teamDomain,
  user: ctx.workspace.botName,
  team_id: ctx.workspace.teamId,
  user_id: ctx.workspace.botUserId,
  bot_id: ctx.workspace.botId,
  is_enterprise_install: false,
});

// users.info answers `user_not_found` for an ID that is no user of the workspace (https://api.slack.com/methods/users.info):
// here the users the fake was given names for, the members of its user groups, and the bot.
const usersInfo: WebApiHandler = (args, ctx) => {
  const id = stringArg(args.user);
  const known = id !== undefined && (id === ctx.workspace.botUserId || ctx.workspace.userNames.has(id) || [...ctx.workspace.userGroups.values()].some((members) => members.includes(id)));
  if (!id || !known) return failure('user_not_found');
  const name = id === ctx.workspace.botUserId ? ctx.workspace.botName : userName(ctx.workspace, id);
  return {
    ok: true,
    user: {
      id,
      team_id: ctx.workspace.teamId,
      name,
      real_name: name,
      deleted: false,
      is_bot: id === ctx.workspace.botUserId,
      tz: 'Etc/UTC',
      profile: { display_name: name, real_name: name },
    },
  };
};

const conversationsInfo: WebApiHandler = (args, ctx) => {
  const id = stringArg(args.channel);
  if (!id) return failure('channel_not_found');
  return {
    ok: true,
    channel: {
      id,
      name: channelName(ctx.workspace, id),
      is_channel: id.startsWith('C'),
      is_group: id.startsWith('G'),
      is_im: id.startsWith('D'),
      is_private: id.startsWith('G'),
      is_archived: false,
      is_member: isMember(ctx.workspace.access, id),
    },
  };
};

const usergroupMembers: WebApiHandler = (args, ctx) => {
  const id = stringArg(args.usergroup);
  const users = id ? ctx.workspace.userGroups.get(id) : undefined;
  if (!users) return failure('no_such_subteam');
  return { ok: true, users: [...users] };
};

export const directoryMethods: Record<string, WebApiHandler> = {
  'auth.test': authTest,
  'users.info': usersInfo,
  'conversations.info': conversationsInfo,
  'usergroups.users.list': usergroupMembers,
};
