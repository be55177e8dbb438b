/**
 * The modal behind Force: a required reason, recorded in the timeline with who forced and when. Opened from the
 * Force button's trigger_id (valid 3 s, single use); its submission arrives as view_submission with callback_id
 * `force-reason`, carrying in private_metadata the gate it answers and where to tell the submitter the outcome.
 */

import type { View } from '@slack/types';
import { z } from 'zod';
import type { GateRef } from './gate-click.js';

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
  return {
    type: 'modal',
    callback_id: FORCE_CALLBACK_ID,
    private_metadata: JSON.stringify(metadata),
    title: { type: 'plain_text', text: 'Force this step' },
    submit: { type: 'plain_text', text: 'Force' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `You are overriding the check that stopped ${what}. The reason is posted in the thread and kept in the timeline.`,
        },
      },
      {
        type: 'input',
        block_id: REASON_BLOCK_ID,
        label: { type: 'plain_text', text: 'Why is it safe to force?' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_ACTION_ID,
          multiline: true,
          min_length: MIN_REASON_LENGTH,
          max_length: MAX_REASON_LENGTH,
          placeholder: { type: 'plain_text', text: 'e.g. orders can lose one replica for 5 minutes; agreed with the team in #orders' },
        },
      },
    ],
  };
}

export function parseForceMetadata(text: string | undefined): ForceMetadata | undefined {
  try {
    const parsed = metadataSchema.safeParse(JSON.parse(text ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The error shown under the reason field, or undefined when the reason will do. */
export function reasonProblem(reason: string | undefined | null): string | undefined {
  const trimmed = (reason ?? '').trim();
  if (trimmed.length < MIN_REASON_LENGTH) return `Give a reason of at least ${MIN_REASON_LENGTH} characters; it is recorded in the timeline.`;
  return undefined;
}
