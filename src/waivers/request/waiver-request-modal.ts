import type { View } from '@slack/types';
import { z } from 'zod';
import { MAX_WAIVER_DAYS, MIN_WAIVER_REASON } from '../model/waiver-match.js';
import { datePickerInput, parseJsonAs, reasonModalView, reasonProblemOf } from '../../report/blocks/reason-modal.js';

/**
 * The modal behind Waive…: a reason and an expiry date (at most MAX_WAIVER_DAYS ahead). Opened from the button's
 * trigger_id; its submission (callback_id `waiver-request`) carries in private_metadata the finding it waives and
 * the channel where the request card goes. Validation is pure and answered inline (response_action: errors).
 */
export const WAIVER_CALLBACK_ID = 'waiver-request';
export const WAIVER_REASON_BLOCK = 'waiver-reason';
export const WAIVER_REASON_ACTION = 'reason';
export const WAIVER_EXPIRY_BLOCK = 'waiver-expiry';
export const WAIVER_EXPIRY_ACTION = 'expires';
const DAY = 24 * 3600_000;

const findingRefSchema = z.object({ c: z.string().min(1), k: z.string().regex(/^[A-Z0-9]{2,4}\d{3}$/), r: z.string().min(1).max(500), t: z.string().max(300).optional() });
export type FindingRef = z.infer<typeof findingRefSchema>;

const metadataSchema = findingRefSchema.extend({ channel: z.string().min(1) });
export type WaiverMetadata = z.infer<typeof metadataSchema>;

/** The Waive… button's value (render-plan-blocks.ts waiveButtonValue), or undefined when it was tampered with. */
export const parseFindingRef = (text: string | undefined) => parseJsonAs(findingRefSchema, text);
export const parseWaiverMetadata = (text: string | undefined) => parseJsonAs(metadataSchema, text);

function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export function waiverRequestView(metadata: WaiverMetadata, now: number): View {
  return reasonModalView({
    callbackId: WAIVER_CALLBACK_ID,
    metadata,
    title: 'Waive a finding',
    submit: 'Ask for approval',
    intro: `\`${metadata.k}\` on \`${metadata.r}\` (${metadata.c})${metadata.t ? `\n> ${metadata.t}` : ''}\nAn approver of ${metadata.c} must confirm the waiver; until it expires the finding is shown as waived and no longer blocks.`,
    reason: { blockId: WAIVER_REASON_BLOCK, actionId: WAIVER_REASON_ACTION, label: 'Why may this finding stand?', minLength: MIN_WAIVER_REASON, maxLength: 1000 },
    more: [datePickerInput({ blockId: WAIVER_EXPIRY_BLOCK, actionId: WAIVER_EXPIRY_ACTION, label: `Expires (UTC, at most ${MAX_WAIVER_DAYS} days)`, initialDate: isoDate(now + 14 * DAY) })],
  });
}

export function waiverReasonProblem(reason: string | null | undefined): string | undefined {
  return reasonProblemOf(reason, MIN_WAIVER_REASON, 'it is shown wherever the finding is');
}

/** The waiver's end (the end of the chosen day, UTC), or a sentence saying what is wrong with the date. */
export function waiverExpiry(date: string | null | undefined, now: number): { expiresAt: number } | { problem: string } {
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) return { problem: 'Choose the date the waiver ends.' };
  const expiresAt = Date.parse(date) + DAY;
  if (expiresAt <= now) return { problem: 'The waiver would already have ended: choose today or a later date.' };
  if (expiresAt - now > MAX_WAIVER_DAYS * DAY) return { problem: `A waiver lasts at most ${MAX_WAIVER_DAYS} days: choose ${isoDate(now + (MAX_WAIVER_DAYS - 1) * DAY)} or earlier.` };
  return { expiresAt };
}
