import type { KnownBlock, View } from '@slack/types';
import type { z } from 'zod';

/**
 * The one modal that asks a person why (Waive…, Force): an explanation, a required multi-line reason of at least
 * `minLength` characters (Slack enforces min_length and max_length in the client, the handler checks again with
 * `reasonProblemOf`), any further inputs, and the request's own context in private_metadata (at most 3,000
 * characters: https://docs.slack.dev/reference/views/modal-views).
 */
export interface ReasonModal {
  callbackId: string;
  metadata: unknown;
  title: string;
  submit: string;
  /** The mrkdwn line above the reason: what is being asked, and where the reason will be seen. */
  intro: string;
  reason: { blockId: string; actionId: string; label: string; minLength: number; maxLength: number; placeholder?: string };
  /** Inputs after the reason (the waiver's expiry date). */
  more?: KnownBlock[];
}

export function reasonModalView(modal: ReasonModal): View {
  const { reason } = modal;
  return {
    type: 'modal',
    callback_id: modal.callbackId,
    private_metadata: JSON.stringify(modal.metadata),
    title: { type: 'plain_text', text: modal.title },
    submit: { type: 'plain_text', text: modal.submit },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: modal.intro } },
      {
        type: 'input',
        block_id: reason.blockId,
        label: { type: 'plain_text', text: reason.label },
        element: {
          type: 'plain_text_input',
          action_id: reason.actionId,
          multiline: true,
          min_length: reason.minLength,
          max_length: reason.maxLength,
          ...(reason.placeholder ? { placeholder: { type: 'plain_text', text: reason.placeholder } } : {}),
        },
      },
      ...(modal.more ?? []),
    ],
  };
}

/** The error shown under the reason field (a sentence saying where the reason goes), or undefined when it will do. */
/** A required date input for a modal (`initialDate` as YYYY-MM-DD), read back from view.state.values[blockId][actionId].selected_date. */
export function datePickerInput(input: { blockId: string; actionId: string; label: string; initialDate: string }): KnownBlock {
  return {
    type: 'input',
    block_id: input.blockId,
    label: { type: 'plain_text', text: input.label },
    element: { type: 'datepicker', action_id: input.actionId, initial_date: input.initialDate },
  };
}

export function reasonProblemOf(reason: string | null | undefined, minLength: number, keptWhere: string): string | undefined {
  return (reason ?? '').trim().length < minLength ? `Give a reason of at least ${minLength} characters; ${keptWhere}.` : undefined;
}

/** A submission's private_metadata (or a button's value) read back by its schema: undefined when it was tampered with. */
export function parseJsonAs<T>(schema: z.ZodType<T>, text: string | undefined): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(text ?? ''));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
