/**
 * Everything between the ack and a subcommand's work: answers a malformed command with its usage, checks that the
 * cluster exists and may be driven from this channel, that the user may start upgrades, then runs the handler.
 * Every refusal is an ephemeral sentence; nothing is changed on bad input. Job-level checks of pause / resume /
 * abort (which job, whose cluster) happen in their handler, once the job is known.
 */

import type { BotDeps } from '../../src/ports/bot-deps.js';
import { findCluster, type ClusterConfig } from '../../src/config/clusters-config.js';
import type { CommandOutcome, SlashCommandReply } from '../../src/ports/slack/slash-command.js';
import { authorizeStart, channelRefusal } from '../../src/domain/authorize.js';
import { recordAudit } from '../../src/audit/record-audit.js';
import { clustersVisibleFrom, type CommandContext, type CommandHandler } from './command-context.js';
import { describeFailure } from './command-failure.js';
import { CommandRejected, RefusedForCluster } from './command-rejected.js';
import { problemMessage, usageProblem, type Subcommand } from './command-usage.js';
import { quoteInput, type ParseResult } from './parse-command.js';

export type CommandHandlers = Record<Subcommand, CommandHandler>;

/**
 * The line a command leaves in the log once answered: handled, or turned away as malformed. `fields` carries the user
 * and channel where the logger does not (a command answered with its ack logs without a child logger of its own).
 */
export function logOutcome(log: BotDeps['logger'], parsed: ParseResult, fields: Record<string, string> = {}): CommandOutcome {
  if (parsed.ok) {
    log.info({ ...fields, subcommand: parsed.command.subcommand, target: parsed.command.target }, 'slash command handled');
    return 'ok';
  }
  log.info({ ...fields, subcommand: parsed.subcommand ?? 'unknown', problem: parsed.problem }, 'slash command rejected: malformed');
  return 'rejected';
}

export interface CommandRequest {
  parsed: ParseResult;
  userId: string;
  channelId: string;
  respond: CommandContext['respond'];
  replacing?: CommandContext['replacing'];
}

export async function routeCommand(request: CommandRequest, deps: BotDeps, handlers: CommandHandlers): Promise<CommandOutcome> {
  const { parsed, userId, channelId } = request;
  const log = deps.logger.child({ user: userId, channel: channelId });
  if (!parsed.ok) {
    logOutcome(log, parsed);
    await request.respond(malformedReply(parsed));
    return 'rejected';
  }
  const { command } = parsed;
  try {
    const args = checkAccessAndNormalise(deps, command.subcommand, command.target, command.all, command.args, channelId);
    if (command.subcommand === 'start' || command.subcommand === 'rollback') {
      const cluster = findCluster(deps.config, command.target!)!;
      const decision = await authorizeStart(deps, cluster, userId, command.subcommand === 'rollback' ? 'rollbacks' : 'upgrades');
      if (!decision.allowed) {
        log.warn({ subcommand: 'start', cluster: cluster.name, to: command.to }, 'refused: user may not start upgrades of this cluster');
        throw new RefusedForCluster(decision.reason, cluster.name);
      }
    }
    await handlers[command.subcommand]({
      args,
      userId,
      channelId,
      deps,
      respond: (message) => request.respond({ response_type: 'ephemeral', ...message }),
      ...(request.replacing ? { replacing: request.replacing } : {}),
    });
    logOutcome(log, parsed);
    return 'ok';
  } catch (error) {
    if (error instanceof RefusedForCluster) {
      const entry = { at: deps.clock.now(), cluster: error.cluster, user: userId, action: command.subcommand, outcome: 'refused', detail: error.message, via: 'command' as const };
      await recordAudit(deps.audit, log, entry);
    }
    if (error instanceof CommandRejected) {
      log.info({ subcommand: command.subcommand, target: command.target, problem: error.message }, 'slash command rejected');
      await request.respond({ ...error.reply, response_type: 'ephemeral' });
      return 'rejected';
    }
    log.error({ err: error, subcommand: command.subcommand, target: command.target }, 'slash command failed');
    const what = `\`${command.subcommand}${command.target ? ` ${command.target}` : ''}\``;
    await request.respond({ ...problemMessage(`${what} did not complete. ${describeFailure(error)}`), response_type: 'ephemeral' });
    return 'error';
  }
}

/** The answer to a command that does not parse: what was wrong, then its usage (the Slack adapter sends it with the ack). */
export function malformedReply(parsed: Extract<ParseResult, { ok: false }>): SlashCommandReply {
  return { ...usageProblem(parsed.problem, parsed.subcommand), response_type: 'ephemeral' };
}

/**
 * Checks the cluster named on the command line against clusters.yaml and this channel; returns the handler's args
 * (a bare `status` becomes `status --all`: every cluster of this channel).
 */
function checkAccessAndNormalise(
  deps: BotDeps,
  subcommand: Subcommand,
  target: string | undefined,
  all: boolean,
  args: string[],
  channelId: string,
): string[] {
  const takesCluster = subcommand === 'status' || subcommand === 'plan' || subcommand === 'start' || subcommand === 'rollback' || subcommand === 'jobs' || subcommand === 'audit' || subcommand === 'waivers' || subcommand === 'rehearse';
  if (!takesCluster) return args;
  if (target !== undefined) {
    checkCluster(deps, target, channelId);
    return args;
  }
  if (clustersVisibleFrom(deps, channelId).length === 0) throw new CommandRejected(noClusterHere(channelId));
  return subcommand === 'status' && !all ? [...args, '--all'] : args;
}

export function checkCluster(deps: BotDeps, name: string, channelId: string): ClusterConfig {
  const cluster = findCluster(deps.config, name);
  const visible = clustersVisibleFrom(deps, channelId).map((c) => `\`${c.name}\``);
  if (!cluster) {
    const options = visible.length > 0 ? ` From this channel you may use ${visible.join(', ')}.` : ` ${noClusterHere(channelId)}`;
    throw new CommandRejected(`There is no cluster ${quoteInput(name)} in clusters.yaml.${options}`);
  }
  if (!cluster.channels.includes(channelId)) throw new RefusedForCluster(channelRefusal(cluster), cluster.name);
  return cluster;
}

function noClusterHere(channelId: string): string {
  return `No cluster may be driven from this channel (<#${channelId}>); the bot's operator can add it to a cluster's \`channels\` in clusters.yaml.`;
}
