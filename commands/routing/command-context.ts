import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { ClusterConfig } from '../../src/config/clusters-config.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import type { ReplacedJob } from '../../src/ports/slack/slash-command.js';

/**
 * What every subcommand handler gets. The router (commands/routing/route-command.ts) has already acked the slash command
 * within Slack's 3 s, parsed the text, checked the cluster exists and that this channel and user may use it.
 * Handlers do their (possibly slow) work and answer through `respond` (response_url): ephemeral by default.
 */
export interface CommandContext {
  /** Words after the subcommand, already split (quotes honoured); flags still in place. */
  args: string[];
  userId: string;
  channelId: string;
  deps: BotDeps;
  respond(message: SlackMessage & { response_type?: 'ephemeral' | 'in_channel'; replace_original?: boolean }): Promise<void>;
  /** The held upgrade a breach card's Roll back replaces (only `rollback` reads it): see SlashCommandRequest. */
  replacing?: ReplacedJob;
}

export type CommandHandler = (context: CommandContext) => Promise<void>;

/** Clusters this user may look at from this channel (status --all, jobs). */
export function clustersVisibleFrom(deps: BotDeps, channelId: string): ClusterConfig[] {
  return deps.config.clusters.filter((cluster) => cluster.channels.includes(channelId));
}
