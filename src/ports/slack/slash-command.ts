/**
 * A slash command as the Slack adapter serves it. The adapter (src/slack/create-slack-app.ts) knows Bolt, the
 * router (commands/routing/slash-command-router.ts) knows the subcommands, and the entry point (src/start-bot.ts) hands the
 * one to the other, so neither imports the other.
 */

import type { SlackMessage } from './slack-message.js';

/** How a command ended, as GET /metrics counts it. */
export type CommandOutcome = 'ok' | 'rejected' | 'error';

/** An answer through the command's response_url: ephemeral unless it says otherwise. */
export type SlashCommandReply = SlackMessage & { response_type?: 'ephemeral' | 'in_channel'; replace_original?: boolean };

export interface SlashCommandRequest {
  text: string;
  userId: string;
  channelId: string;
  respond(reply: SlashCommandReply): Promise<void>;
  /**
   * The breach card's Roll back (issue 29): `rollback` may start although this job holds the cluster. Once the
   * rollback's own checks have passed, `clear()` aborts the job at its safe point and resolves when it has let go of
   * the cluster, or with the sentence saying why it could not (then nothing starts).
   */
  replacing?: ReplacedJob;
}

export interface ReplacedJob {
  jobId: string;
  clear(): Promise<string | undefined>;
}

export interface PreparedCommand {
  /** The subcommand named (or 'unknown'), for the metrics. */
  readonly subcommand: string;
  /**
   * Only reads and answers (status, plan, digest): running it twice answers twice and changes nothing, so a web
   * process may hand it to a worker process (CommandHandOff) instead of reading AWS on the loop that acks.
   */
  readonly readOnly: boolean;
  /**
   * The whole answer, when parsing alone decides it (a malformed command's usage, `help`). Slack shows a message in
   * a slash command's HTTP 200 as it shows one sent to the response_url ("respond to the command … in the body of
   * the acknowledgment", https://docs.slack.dev/interactivity/implementing-slash-commands), so an adapter may send
   * it with the ack: one request instead of two, and no response_url call to fail.
   */
  readonly reply?: SlashCommandReply;
  /**
   * Authorizes and runs it, answering through respond; resolves with the outcome, never with a thrown refusal.
   * `repliedInAck`: the adapter sent `reply` with the ack, so run() only logs and counts it.
   */
  run(options?: { repliedInAck?: boolean }): Promise<CommandOutcome>;
}

export interface SlashCommandRouter {
  /** The command Slack sends, e.g. '/eks-upgrade'. */
  readonly command: string;
  /** Parses synchronously and cheaply: nothing may come before the ack, which Slack waits 3 s for. */
  prepare(request: SlashCommandRequest): PreparedCommand;
}

/** A slash command handed from the web process to a worker: what it takes to run it there and answer the user. */
export interface HandedOffCommand {
  text: string;
  userId: string;
  channelId: string;
  /** Slack's response_url of the command (valid 30 minutes, 5 posts): the worker answers through it. */
  responseUrl: string;
}

/** Hands read-only commands to the worker processes (jobs/slash-commands/slash-command-queue.ts); resolves once queued. */
export interface CommandHandOff {
  enqueue(command: HandedOffCommand): Promise<void>;
}
