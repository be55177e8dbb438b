import type { KnownBlock } from '@slack/types';
import type { SlackMessage } from '../../ports/slack/slack-message.js';
import type { StepMessageModel } from '../../ports/timeline-event.js';
import { BLOCK_LIMITS, contextLine, fallbackText, mrkdwnSection, truncateLine } from './block-kit-limits.js';
import { escapeMrkdwn, formatDuration, formatUtcTime } from '../format-text.js';

/** The first line of an error, short enough for a status line (the failure's own reply has it in full). */
function reasonLine(error: string): string {
  return truncateLine(error.split('\n')[0] ?? error, 300);
}

/** The headline of a step message, plain (the fallback text) or as mrkdwn. */
function headline(model: StepMessageModel, mrkdwn: boolean): string {
  const title = mrkdwn ? `*${escapeMrkdwn(model.title)}*` : model.title;
  const duration = formatDuration(model.durationMs ?? Math.max(0, model.at - model.startedAt));
  if (model.shows === 'board') return boardHeadline(model, title, duration);
  switch (model.state) {
    case 'running':
      return `▶️ ${title} started`;
    case 'done':
    case 'dry-run':
      return `✅ ${title} finished in ${duration}`;
    case 'skipped':
      return `✅ ${title} finished in ${duration} (nothing to do)`;
    case 'failed':
      return `❌ ${title} failed after ${duration}`;
    case 'aborted':
      return `⏹️ ${title} aborted after ${duration}`;
  }
}

/** A board beside a step: what it shows while the step runs, then how the step's part of it ended. */
function boardHeadline(model: StepMessageModel, title: string, duration: string): string {
  switch (model.state) {
    case 'running':
      return `⚠️ ${title}`;
    case 'failed':
      return `❌ ${title}: step failed after ${duration}`;
    case 'aborted':
      return `⏹️ ${title}: step aborted after ${duration}`;
    default:
      return `✅ ${title}: step over after ${duration}`;
  }
}

/**
 * A step's one message in the thread, as it reads at this moment: "▶️ started" with the latest progress line while
 * the step runs, then "✅ finished in 4m 12s" with the step's summary, "❌ failed after 3s" with the reason, or
 * "⏹️ aborted". The thread shows the newest version only; the exported timeline keeps every event behind it.
 */
export function renderStepMessage(model: StepMessageModel): SlackMessage {
  const blocks: KnownBlock[] = [mrkdwnSection(headline(model, true))];
  let detail: string | undefined;
  if (model.state === 'running' && model.progress) detail = `⏳ ${model.progress}`;
  else if (model.state === 'failed' && model.error) detail = escapeMrkdwn(reasonLine(model.error));
  else if (model.state !== 'running' && model.summary) detail = model.summary;
  // Summaries and progress lines are the bot's own mrkdwn (mentions like <@U0APP>); only errors quote others' text.
  if (detail) blocks.push(mrkdwnSection(truncateLine(detail, BLOCK_LIMITS.sectionText - 10)));
  const when = model.state === 'running' ? `started ${formatUtcTime(model.startedAt)}` : `${formatUtcTime(model.startedAt)} → ${formatUtcTime(model.at)}`;
  blocks.push(contextLine(`${when} · step \`${model.step}\``));
  const text = `${headline(model, false)}${detail ? ` — ${detail}` : ''}`;
  return { text: fallbackText(text), blocks };
}
