/**
 * Every button and modal the bot answers goes through the same sequence, written here once: ack at once (Slack waits
 * 3 s, then marks the button failed), read the payload, authorize the person, act, leave the audit record, tell them.
 * A handler states only its own parts: which id it answers, how its value reads, who may, what it does, and the
 * sentences. Its parts return an `Answer` (what to log, count, record and tell) and this file carries it out, in
 * that order, so a refusal and a success are recorded alike and a click that cannot be read changes nothing.
 */

import type { App, BlockAction, ViewSubmitAction } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { recordAudit } from '../../audit/record-audit.js';
import type { Logger } from '../../log/logger.js';
import type { AuditEntry } from '../../ports/audit-port.js';
import type { BotDeps } from '../../ports/bot-deps.js';
import type { CommandOutcome, SlashCommandRouter } from '../../ports/slack/slash-command.js';
import { observeAck } from '../metrics-ack.js';
import type { SlackMetrics } from '../metrics.js';
import { clickPlace, tellUser, type ClickPlace } from './tell-user.js';

export interface ActionDeps {
  deps: BotDeps;
  metrics: SlackMetrics;
  logger: Logger;
  /** The slash command router: the Roll back button runs `rollback` through it (absent: the button is not answered). */
  commands?: SlashCommandRouter;
}

/** An audit record as a handler states it: when (the bot's clock, unless given), who and from where are filled in. */
export type AuditFields = Omit<AuditEntry, 'at' | 'user' | 'via'> & { at?: number };

/** What one part of a handler decided; carried out in this order: log, count, audit, show, tell. */
export interface Answer {
  log?: { level: 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> };
  /** The outcome counted for the action (eks_upgrade_slack_actions_total). */
  outcome?: string;
  audit?: AuditFields;
  /** What changes for everyone once the record is written (a card edited in place), before the clicker is told. */
  show?: () => Promise<void>;
  /** The sentence only the clicker sees. */
  tell?: string;
}

/** A refusal ends the click with its answer; a grant hands what authorizing found (the job, the cluster) to `act`. */
export type Verdict<Grant> = { grant: Grant } | { refuse: Answer };

/** One click or submission being answered: who, where, the payload, and telling them something directly. */
export interface Click<Body> {
  /** The button's action_id, or the modal's callback_id. */
  id: string;
  user: string;
  place: ClickPlace;
  body: Body;
  client: WebClient;
  tell(text: string): Promise<void>;
}

interface Parts<Input, Grant, Body> {
  /** Counted under this name (default: the action or callback id). */
  metric?: string;
  /** Beside the level and message of every log line of the click; `user` is always there. */
  logFields?: (id: string, input: NoInfer<Input> | undefined) => Record<string, unknown>;
  /** A payload that does not read: logged, counted `invalid`, told when there is someone to tell; nothing changes. */
  unreadable: { log: string; tell?: string };
  authorize?: (input: Input, click: Click<Body>) => Promise<Verdict<Grant>>;
  act: (input: Input, grant: Grant, click: Click<Body>) => Promise<Answer | void>;
  /** When authorizing or acting throws: the log message and the sentence (absent: the error goes on to Bolt). */
  failed?: (error: unknown, id: string, input: Input) => { log: string; tell: string };
  /** Ids another listener owns: left alone, without an ack (the fallback for unknown ids). */
  skip?: (id: string) => boolean;
}

export interface ButtonSpec<Input, Grant = undefined> extends Parts<Input, Grant, BlockAction> {
  id: string | RegExp;
  read: (value: string | undefined, actionId: string) => Input | undefined;
}

export interface FieldErrors {
  errors: Record<string, string>;
  outcome: string;
}

/** A submission's field errors, typed as such (a bare object literal would be read as a lack of input). */
export const fieldErrors = (errors: Record<string, string>, outcome: string): FieldErrors => ({ errors, outcome });

export interface SubmissionSpec<Input, Grant = undefined> extends Parts<Input, Grant, ViewSubmitAction> {
  callbackId: string | RegExp;
  /**
   * Read before the ack: field errors (block id → sentence) are answered inline and counted as `outcome`; otherwise
   * the input and where to tell the submitter (a modal has no channel of its own: its metadata names one).
   */
  read: (view: ViewSubmitAction['view'], userId: string) => FieldErrors | { input: Input; place: ClickPlace } | undefined;
}

/** A button (block_actions) answered by the sequence. */
export function defineAction<Input, Grant = undefined>(app: App, kit: ActionDeps, spec: ButtonSpec<Input, Grant>): void {
  app.action<BlockAction>(spec.id, async ({ ack, body, action, client, context }) => {
    const id = 'action_id' in action ? String(action.action_id) : '';
    if (spec.skip?.(id)) return;
    await ack();
    observeAck(kit.metrics, context);
    const value = 'value' in action ? (action.value as string | undefined) : undefined;
    const place = clickPlace(body);
    const input = spec.read(value, id);
    await answer(kit, spec, { id, user: body.user.id, place, body, client, input, value, via: 'button' });
  });
}

/** A modal's submission (view_submission) answered by the sequence. */
export function defineSubmission<Input, Grant = undefined>(app: App, kit: ActionDeps, spec: SubmissionSpec<Input, Grant>): void {
  app.view<ViewSubmitAction>(spec.callbackId, async ({ ack, body, view, client, context }) => {
    if (spec.skip?.(view.callback_id)) return;
    const read = spec.read(view, body.user.id);
    if (read && 'errors' in read) {
      await ack({ response_action: 'errors', errors: read.errors });
      observeAck(kit.metrics, context);
      kit.metrics.countAction(spec.metric ?? view.callback_id, read.outcome);
      return;
    }
    await ack();
    observeAck(kit.metrics, context);
    await answer(kit, spec, { id: view.callback_id, user: body.user.id, place: read?.place, body, client, input: read?.input, via: 'modal' });
  });
}

interface Request<Input, Body> {
  id: string;
  user: string;
  place: ClickPlace | undefined;
  body: Body;
  client: WebClient;
  input: Input | undefined;
  value?: string;
  via: 'button' | 'modal';
}

async function answer<Input, Grant, Body>({ deps, metrics, logger }: ActionDeps, spec: Parts<Input, Grant, Body>, request: Request<Input, Body>): Promise<void> {
  const { id, user, place, input, via } = request;
  const fields = { ...spec.logFields?.(id, input), user };
  const metric = spec.metric ?? id;
  const tell = (text: string) => (place ? tellUser(request.client, place, text, logger) : Promise.resolve());
  const carryOut = async (said: Answer | void) => {
    if (!said) return;
    if (said.log) logger[said.log.level]({ ...fields, ...said.log.fields }, said.log.msg);
    if (said.outcome) metrics.countAction(metric, said.outcome);
    if (said.audit) await recordAudit(deps.audit, logger, { at: deps.clock.now(), ...said.audit, user, via });
    await said.show?.();
    if (said.tell) await tell(said.tell);
  };
  if (!place || input === undefined) {
    return carryOut({ log: { level: 'warn', msg: spec.unreadable.log, fields: { value: request.value } }, outcome: 'invalid', tell: spec.unreadable.tell });
  }
  const click: Click<Body> = { id, user, place, body: request.body, client: request.client, tell };
  try {
    const verdict = spec.authorize ? await spec.authorize(input, click) : { grant: undefined as Grant };
    if ('refuse' in verdict) return await carryOut(verdict.refuse);
    await carryOut(await spec.act(input, verdict.grant, click));
  } catch (error) {
    if (!spec.failed) throw error;
    const { log, tell: text } = spec.failed(error, id, input);
    await carryOut({ log: { level: 'error', msg: log, fields: { err: error } }, outcome: 'error', tell: text });
  }
}

/** The router's verdict on a subcommand a button ran, as the button's counted outcome. */
export function routedOutcome(outcome: CommandOutcome): string {
  return outcome === 'ok' ? 'accepted' : outcome === 'rejected' ? 'refused' : 'error';
}
