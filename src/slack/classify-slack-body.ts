import { parse } from 'node:querystring';
import { z } from 'zod';

/**
 * Decides, from a body whose signature already verified, whether Bolt should see it. Bolt trusts the shape of what
 * Slack signs: a `payload` of `null` throws inside its receiver (an uncaught TypeError that ends the process), and a
 * payload type or command it has no listener for is never acked, so Slack waits 3 s and marks it failed. The fuzzer
 * (test/chaos/fuzz-slack.ts) found both. So: shapes this bot answers go on to Bolt; interaction types Slack sends but
 * this bot has nothing for are acked empty; anything else is refused with 400.
 */
export type BodyVerdict = { kind: 'dispatch' } | { kind: 'ack-empty'; why: string } | { kind: 'reject'; why: string };

const blockActions = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ action_id: z.string(), type: z.string() })).min(1),
});
const viewSubmission = z.object({
  type: z.literal('view_submission'),
  user: z.object({ id: z.string().min(1) }),
  view: z.object({ callback_id: z.string(), state: z.object({ values: z.record(z.string(), z.unknown()) }).optional(), private_metadata: z.string().optional() }),
});
/** Interaction types Slack sends that this bot has no listener for (no shortcuts, no select menus with options). */
const IGNORED_TYPES = new Set(['view_closed', 'shortcut', 'message_action', 'block_suggestion', 'interactive_message', 'dialog_submission', 'dialog_cancellation']);
/** Events API bodies (JSON): Bolt answers url_verification itself; the bot subscribes to no events. */
const EVENT_TYPES = new Set(['url_verification', 'event_callback', 'app_rate_limited']);

export function classifySlackBody(contentType: string, raw: string, command: string): BodyVerdict {
  if (contentType === 'application/json') {
    const body = parseJson(raw);
    if (!isObject(body) || typeof body.type !== 'string') return { kind: 'reject', why: 'a JSON body that is not a Slack event' };
    return EVENT_TYPES.has(body.type) ? { kind: 'dispatch' } : { kind: 'reject', why: `an event of type ${body.type.slice(0, 40)}` };
  }
  const form = parse(raw);
  if (form.ssl_check === '1') return { kind: 'dispatch' };
  if (typeof form.payload === 'string') {
    const payload = parseJson(form.payload);
    if (!isObject(payload) || typeof payload.type !== 'string') return { kind: 'reject', why: 'an interaction payload that is not an object with a type' };
    if (payload.type === 'block_actions') return blockActions.safeParse(payload).success ? { kind: 'dispatch' } : { kind: 'reject', why: 'a block_actions payload without a user or actions' };
    if (payload.type === 'view_submission') return viewSubmission.safeParse(payload).success ? { kind: 'dispatch' } : { kind: 'reject', why: 'a view_submission payload without a user or view' };
    if (IGNORED_TYPES.has(payload.type)) return { kind: 'ack-empty', why: `${payload.type} (the bot has nothing for it)` };
    return { kind: 'reject', why: `an interaction of type ${payload.type.slice(0, 40)}` };
  }
  if (typeof form.command === 'string') {
    // Checked by hand, not with a schema: every command comes this way, and zod's safeParse was most of this check's
    // CPU in bench P1. A key given twice parses to an array, which is refused like a missing one.
    return form.command === command && isFilled(form.user_id) && isFilled(form.channel_id) && (form.text === undefined || typeof form.text === 'string')
      ? { kind: 'dispatch' }
      : { kind: 'reject', why: `a slash command other than ${command}, or without a user and channel` };
  }
  return { kind: 'reject', why: 'a form body that is neither a slash command nor an interaction' };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isFilled(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
