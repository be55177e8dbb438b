/**
 * The modal behind Force: a required reason, recorded in the timeline with who forced and when. Opened from the
 * Force button's trigger_id (valid 3 s, single use); its submission arrives as view_submission with callback_id
 * `force-reason`, carrying in private_metadata the gate it answers and where to tell the submitter the outcome.
 */

import type { View } from '@slack/types';
import { z } from 'zod';
import type { GateRef } from './gate-click.js';
import { parseJsonAs, reasonModalView, reasonProblemOf } from '../../report/blocks/reason-modal.js';

export const FORCE_CALLBACK_ID = 'force-reason';
export const REASON_BLOCK_ID = 'reason';
export const REASON_ACTION_ID = 'reason';
export const MIN_REASON_LENGTH = 10;
const MAX_REASON_LENGTH = 1000;

export interface ForceMetadata extends GateRef {
  channel: string;
  threadTs?: string;
}

const metadataSchema = z.object({
  jobId: z.string().min(1),
  gateId: z.string().min(1),
  revision: z.number().int().nonnegative(),
  channel: z.string().min(1),
  threadTs: z.string().optional(),
});

export function forceReasonView(metadata: ForceMetadata, context: { cluster: string; gateTitle?: string }): View {
  const what = context.gateTitle ? `*${context.gateTitle}* (${context.cluster})` : `the open gate of ${context.cluster}`;
  return reasonModalView({
    callbackId: FORCE_CALLBACK_ID,
    metadata,
    title: 'Force this step',
    submit: 'Force',
    intro: `You are overriding the check that stopped ${what}. The reason is posted in the thread and kept in the timeline.`,
    reason: {
      blockId: REASON_BLOCK_ID,
      actionId: REASON_ACTION_ID,
      label: 'Why is it safe to force?',
      minLength: MIN_REASON_LENGTH,
      maxLength: MAX_REASON_LENGTH,
      placeholder: 'e.g. orders can lose one replica for 5 minutes; agreed with the team in #orders',
    },
  });
}

export function parseForceMetadata(text: string | undefined): ForceMetadata | undefined {
  return parseJsonAs(metadataSchema, text);
}

/** The error shown under the reason field, or undefined when the reason will do. */
export function reasonProblem(reason: string | undefined | null): string | undefined {
  return reasonProblemOf(reason, MIN_REASON_LENGTH, 'it is recorded in the timeline');
}
