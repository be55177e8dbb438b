/**
 * Read-only slash commands (status, plan, digest) asked in a web process run in the worker processes: a BullMQ
 * queue `slash-command` (the bot's prefix) carries the commands and their response_urls, and a worker parses each
 * again, authorizes and runs it exactly as the web process would, answering through the response_url. The web
 * process's event loop then only verifies, parses and acks: a burst of status reads no longer delays the next
 * command's ack past Slack's 3 s (issue 17, bench P1).
 *
 * Commands travel several to a job (`commands`, up to MAX_COMMANDS_PER_JOB): BullMQ's cost is per job, in the web
 * process, in Redis and in the worker, and in a burst it was the web process's largest cost of a command beside the
 * ack itself. A worker that dies mid-job leaves it stalled; BullMQ hands it to another worker, which answers its
 * commands again (they only read, so a user at worst sees an answer twice).
 */

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createLimiter } from '../../src/cluster-reader/bounded.js';
import type { Logger } from '../../src/log/logger.js';
import type { Metrics } from '../../src/ports/metrics.js';
import type { CommandHandOff, CommandOutcome, HandedOffCommand, SlashCommandReply, SlashCommandRouter } from '../../src/ports/slack/slash-command.js';
import type { QueueKit } from '../../src/store/queue-kit.js';

const QUEUE = 'slash-command';

/**
 * A job of the queue: the commands one write handed over. A web process of the release before this one (during a
 * rolling deploy) queues one command a job, named `command`, with the command as its data; workers take both.
 */
type CommandJob = { commands: HandedOffCommand[] } | HandedOffCommand;

/**
 * Commands one worker process runs at once, whichever jobs they came in: reads of a slow AWS overlap (30 commands of
 * 2 s each answer within 4 s) while a burst of 200 queues in Redis instead of in the worker's memory.
 */
export const COMMAND_WORKER_CONCURRENCY = 16;

/** Jobs one worker process takes at once: enough that its COMMAND_WORKER_CONCURRENCY slots stay busy. */
const JOBS_AT_ONCE = 4;

/**
 * How long the web process waits for Redis to take a command before running it itself: BullMQ waits for a lost
 * connection to come back rather than failing. Should Redis take it after all, the user sees the answer twice.
 */
export const ENQUEUE_TIMEOUT_MS = 2_000;

/**
 * Commands in one job at most. BullMQ's cost is per job: on the bench machine `addBulk` of 50 one-command jobs cost
 * the web process 0.06–0.13 ms of CPU a command, one job of 50 commands 0.004–0.011 ms (and Redis runs one script a job,
 * the worker two). Small enough that a burst's jobs spread over several worker processes.
 */
export const MAX_COMMANDS_PER_JOB = 16;

/**
 * Acks first, across processes: commands gather until none has come for QUIET_MS, and at most HOLD_MS after the
 * first, before they are handed to the workers. One command alone waits QUIET_MS (little beside an answer that reads
 * AWS). In a burst they keep coming, so the workers' reads start once the burst pauses, or HOLD_MS in, instead of
 * a few milliseconds after its first command, on the cores that must ack the rest of it within Slack's 3 s (a web
 * process and a worker on one node, or docker-compose). Bench P1: with commands handed off 5 ms after the first, the
 * worker spent 120–150 ms of CPU in a burst of 100 commands, 50 in flight, and the p99 of the acks missed its goal.
 * A quiet period of 5 ms was too short: a web process busy acking leaves gaps that long between hand-offs.
 */
export const QUIET_MS = 20;
export const HOLD_MS = 100;

export function createCommandQueue(queues: QueueKit): CommandHandOff & { close(): Promise<void> } {
  const queue = queues.queue<CommandJob>(QUEUE, { maxRetriesPerRequest: 1 });
  queue.on('error', () => undefined);
  const gathering: Array<{ command: HandedOffCommand; settle: (error?: unknown) => void }> = [];
  let writing = false;
  const window = gatherWindow(() => void write());
  const write = async () => {
    writing = true;
    while (gathering.length > 0) {
      // Everything gathered goes in one Redis write (a pipeline); those arriving meanwhile go in the next, right after.
      const batch = gathering.splice(0);
      const jobs = [];
      for (let start = 0; start < batch.length; start += MAX_COMMANDS_PER_JOB) {
        const commands = batch.slice(start, start + MAX_COMMANDS_PER_JOB).map(({ command }) => command);
        // Nothing is kept once answered: a job holds response_urls, which let anyone answer in the users' names.
        jobs.push({ name: 'commands', data: { commands }, opts: { removeOnComplete: true, removeOnFail: true } });
      }
      await queue.addBulk(jobs).then(
        () => batch.forEach(({ settle }) => settle()),
        (error: unknown) => batch.forEach(({ settle }) => settle(error)),
      );
    }
    writing = false;
  };
  return {
    async enqueue(command) {
      const added = new Promise<void>((resolve, reject) => gathering.push({ command, settle: (error) => (error === undefined ? resolve() : reject(error)) }));
      added.catch(() => undefined);
      // Commands that come while a write is under way go in the next, right after it.
      if (!writing) window.arrived();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // A loop held up past the deadline (a busy machine) may find Redis's answer waiting beside this timer: it
          // is read in the poll phase, which comes after the timers and before the immediates, so it wins the race.
          setImmediate(() => reject(new Error(`Redis did not take the command within ${ENQUEUE_TIMEOUT_MS / 1000} s`)));
        }, ENQUEUE_TIMEOUT_MS);
      });
      try {
        await Promise.race([added, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      // Commands still in their window go now, not never.
      if (window.cancel()) await write();
      await queue.close();
    },
  };
}

/**
 * The window commands gather in before a write: it ends once no command has arrived for `quietMs`, or `holdMs` after
 * the first, whichever is sooner. It is re-armed when it ends too early, not on every arrival: one timer a burst.
 */
export function gatherWindow(onEnd: () => void, { quietMs = QUIET_MS, holdMs = HOLD_MS, now = () => performance.now() } = {}) {
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;
  let lastAt = 0;
  const ends = () => {
    const at = now();
    const wait = Math.min(quietMs - (at - lastAt), holdMs - (at - firstAt));
    if (wait > 0) {
      timer = setTimeout(ends, wait);
      return;
    }
    timer = undefined;
    onEnd();
  };
  return {
    /** A command arrived: opens the window, or keeps an open one from ending for another `quietMs`. */
    arrived() {
      lastAt = now();
      if (timer !== undefined) return;
      firstAt = lastAt;
      timer = setTimeout(ends, quietMs);
    },
    /** Closes an open window without ending it; whether one was open. */
    cancel(): boolean {
      if (timer === undefined) return false;
      clearTimeout(timer);
      timer = undefined;
      return true;
    },
  };
}

/**
 * Keep-alive connections to the response_urls' host (hooks.slack.com), one pool per process, on node's http(s):
 * `fetch` cost the worker about three times the CPU per answer (bench P1, where the worker's answers share two cores
 * with the web process's acks).
 */
const RESPONSE_URL_AGENTS = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
const RESPONSE_URL_TIMEOUT_MS = 10_000;

/**
 * Posts a reply to a response_url as Slack documents it (JSON body; 200 "ok" when taken). Slack answers a used-up
 * or expired URL with 404 and a reason; that is reported as a sentence for the log.
 */
export async function postToResponseUrl(responseUrl: string, reply: SlashCommandReply): Promise<void> {
  const url = new URL(responseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`a response_url must be an http(s) URL, not ${url.protocol}`);
  const body = JSON.stringify(reply);
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: 'POST',
        agent: RESPONSE_URL_AGENTS[url.protocol as 'http:' | 'https:'],
        headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) },
        signal: AbortSignal.timeout(RESPONSE_URL_TIMEOUT_MS),
      },
      (response) => {
        // Only a refusal's reason is read, and only its start; the rest of any answer is drained.
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < 200) text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
  if (status < 200 || status > 299) throw new Error(`Slack refused the reply to a slash command (HTTP ${status}: ${text.slice(0, 200)})`);
}

export interface CommandWorkerOptions {
  queues: QueueKit;
  commands: SlashCommandRouter;
  logger: Logger;
  metrics?: Pick<Metrics, 'countCommand'>;
  concurrency?: number;
}

export async function startCommandWorker(opts: CommandWorkerOptions): Promise<{ close(): Promise<void> }> {
  // One bound on the commands under way in this process, whichever job they came in.
  const limit = createLimiter(opts.concurrency ?? COMMAND_WORKER_CONCURRENCY);
  const answer = async ({ text, userId, channelId, responseUrl }: HandedOffCommand) => {
    const prepared = opts.commands.prepare({ text, userId, channelId, respond: (reply) => postToResponseUrl(responseUrl, reply) });
    let outcome: CommandOutcome = 'error';
    try {
      outcome = await prepared.run();
    } catch (error) {
      // Only the response_url itself failing gets here; the router turns everything else into a reply.
      opts.logger.error({ err: error, subcommand: prepared.subcommand, user: userId }, 'could not answer a slash command');
    } finally {
      opts.metrics?.countCommand(prepared.subcommand, outcome);
    }
  };
  const worker = opts.queues.worker<CommandJob>(
    QUEUE,
    async (job) => {
      const commands = 'commands' in job.data ? job.data.commands : [job.data];
      await Promise.all(commands.map((command) => limit(() => answer(command))));
    },
    { maxRetriesPerRequest: null },
    { concurrency: JOBS_AT_ONCE },
  );
  worker.on('error', (error) => opts.logger.warn({ err: error }, 'slash command worker: Redis error'));
  await worker.waitUntilReady();
  return { close: () => worker.close() };
}
