/** Types for block-kit-html.js (a plain ES module the browser loads as is). */
import type { MentionNames } from './mrkdwn-html.js';
export function renderButton(element: Record<string, unknown>, blockId?: string): string;
export function renderBlocks(blocks: unknown, names?: MentionNames, errors?: Record<string, string>): string;
export function renderMessageBody(message: { text?: string; blocks?: unknown[]; attachments?: unknown[] }, names?: MentionNames): string;
export function renderModal(view: Record<string, unknown>, errors?: Record<string, string>, names?: MentionNames): string;
export function renderConfirm(confirm: Record<string, unknown>, names?: MentionNames): string;
