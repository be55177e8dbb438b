/** Slack's limits on the tokens that come with a command or interaction (shared/reference/slack.md). */

import { randomBytes } from 'node:crypto';

export const TRIGGER_TTL_MS = 3_000;
export const RESPONSE_URL_TTL_MS = 30 * 60_000;
export const RESPONSE_URL_MAX_USES = 5;

/** Where an interaction happened: what a response_url or trigger_id answers into. */
export interface InteractionContext {
  channel: string;
  user: string;
  /** Thread of the clicked message, so responses and modals show up in that thread in the conversation view. */
  threadTs?: string;
  /** The message a button was clicked on: what `replace_original` / `delete_original` act on. */
  origin?: { kind: 'message'; channel: string; ts: string } | { kind: 'ephemeral'; ts: string };
}

export interface ResponseUrlState {
  id: string;
  context: InteractionContext;
  issuedAt: number;
  uses: number;
  /**
   * For slash commands there is no original message: `replace_original` then replaces the last ephemeral this
   * response_url (or the command's ack) produced.
   */
  lastEphemeralTs?: string;
}

export type ResponseUrlUse = { ok: true; state: ResponseUrlState } | { ok: false; error: 'expired_url' | 'used_url' };

export type InteractionTokens = ReturnType<typeof createInteractionTokens>;

/** Issues and checks trigger_ids (3 s, single use) and response_urls (5 uses within 30 min). */
export function createInteractionTokens(opts: { clock: () => number; baseUrl: () => string }) {
  const triggers = new Map<string, { context: InteractionContext; issuedAt: number; used: boolean }>();
  const responseUrls = new Map<string, ResponseUrlState>();
  let seq = 0;

  return {
    issueTrigger(context: InteractionContext): string {
      seq += 1;
      const id = `${1000000000 + seq}.${Math.floor(opts.clock() / 1000)}.${randomBytes(16).toString('hex')}`;
      triggers.set(id, { context, issuedAt: opts.clock(), used: false });
      return id;
    },

    /** The trigger's context if it was issued here, is under 3 s old and unused; it is then spent. */
    consumeTrigger(id: unknown): InteractionContext | undefined {
      const trigger = typeof id === 'string' ? triggers.get(id) : undefined;
      if (!trigger || trigger.used || opts.clock() - trigger.issuedAt >= TRIGGER_TTL_MS) return undefined;
      trigger.used = true;
      return trigger.context;
    },

    issueResponseUrl(context: InteractionContext): string {
      seq += 1;
      const id = `${seq}-${randomBytes(8).toString('hex')}`;
      responseUrls.set(id, { id, context, issuedAt: opts.clock(), uses: 0 });
      return `${opts.baseUrl()}/response/${id}`;
    },

    responseUrlState(url: string): ResponseUrlState | undefined {
      return responseUrls.get(url.slice(url.lastIndexOf('/') + 1));
    },

    /** Counts one use of a response_url; refuses unknown, expired and over-used ones as Slack does (HTTP 404). */
    useResponseUrl(id: string): ResponseUrlUse {
      const state = responseUrls.get(id);
      if (!state || opts.clock() - state.issuedAt >= RESPONSE_URL_TTL_MS) return { ok: false, error: 'expired_url' };
      if (state.uses >= RESPONSE_URL_MAX_USES) return { ok: false, error: 'used_url' };
      state.uses += 1;
      return { ok: true, state };
    },
  };
}
