import { STATE_LABELS } from './render-status-card.js';
import { formatDuration, formatUtcDateTime } from '../format-text.js';
import type { GateAction, TimelineEvent } from '../../ports/timeline-event.js';

export interface TimelineJobInfo {
  cluster: string;
  from: string;
  to: string;
  jobId: string;
  requestedBy: string;
  startedAt: number;
}

interface StepRow {
  step: string;
  title: string;
  startedAt?: number;
  endedAt?: number;
  durationMs?: number;
  outcome: string;
}

/** Pipes and line breaks would end a Markdown table cell early. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** Names by user ID (users.info), for the file: `@bob (U0BOB)`; an ID without a name stays bare. */
let names: ReadonlyMap<string, string> = new Map();

/** Slack mentions mean nothing in a downloaded file: a person by name with their ID, a group by its ID. */
function plainUser(id: string): string {
  const bare = id.replace(/^<@([A-Z0-9]+)>$/, '$1').replace(/^<!subteam\^([A-Z0-9]+)>$/, '$1');
  const name = names.get(bare);
  return name ? `@${name} (${bare})` : bare;
}

/** Every <@U…> inside a text, as plainUser writes it. */
function plainMentions(text: string): string {
  return text.replace(/<@([UW][A-Z0-9]+)>/g, (_mention, id: string) => plainUser(id));
}

function stepRows(events: TimelineEvent[]): StepRow[] {
  const rows = new Map<string, StepRow>();
  for (const event of events) {
    if (event.kind !== 'step-started' && event.kind !== 'step-finished' && event.kind !== 'step-failed') continue;
    const row = rows.get(event.step) ?? { step: event.step, title: event.title, outcome: 'running' };
    row.title = event.title;
    if (event.kind === 'step-started') {
      row.startedAt ??= event.at;
    } else if (event.kind === 'step-finished') {
      row.endedAt = event.at;
      row.durationMs = event.durationMs;
      row.outcome = event.summary ? `done — ${event.summary}` : 'done';
    } else {
      row.endedAt = event.at;
      if (row.startedAt !== undefined) row.durationMs = event.at - row.startedAt;
      row.outcome = `failed — ${event.error}`;
    }
    rows.set(event.step, row);
  }
  return [...rows.values()];
}

const VERBS: Record<GateAction, string> = { continue: 'approved', abort: 'aborted', force: 'forced', remedy: 'remedy chosen' };

function decision(event: Extract<TimelineEvent, { kind: 'gate-answered' }>): string {
  const reason = event.reason ? ` — reason: ${event.reason}` : '';
  if (event.action === 'timeout') return `timed out without an answer${reason}`;
  const remedy = event.action === 'remedy' && event.gate.remedyLabel ? ` ("${event.gate.remedyLabel}")` : '';
  return `${VERBS[event.action]}${remedy} by ${plainUser(event.by)}${reason}`;
}

/** One line per event for the chronological part of the export: full detail, nothing truncated. */
function describe(event: TimelineEvent): string[] {
  switch (event.kind) {
    case 'step-started':
      return [`Started **${event.title}** (\`${event.step}\`)`];
    case 'step-finished':
      return [`Finished **${event.title}** in ${formatDuration(event.durationMs)}${event.summary ? ` — ${event.summary}` : ''}`];
    case 'step-failed':
      return [`**${event.title}** failed: ${event.error}`, ...(event.remedy ? [`What to do: ${event.remedy}`] : [])];
    case 'progress':
      return [`${event.step}: ${event.text}`];
    case 'note':
      return [`${event.level === 'warning' ? 'Warning' : 'Note'}: ${event.text}`];
    case 'gate-opened':
      return [
        `Gate opened: **${event.gate.title}** (\`${event.gate.gateId}\` rev ${event.gate.revision}; ` +
          `choices: ${event.gate.actions.join(', ')})`,
        ...event.gate.details,
      ];
    case 'gate-answered':
      return [`Gate **${event.gate.title}**: ${decision(event)}`];
    case 'summary':
      return [`Upgrade ${event.from} → ${event.to} ended: ${STATE_LABELS[event.state].label}`, ...event.lines];
  }
}

/**
 * The exported timeline: the durable record of an upgrade that outlives Slack's scrollback. Steps with their
 * durations, who approved what, then every event with its UTC timestamp. Unlike the Slack replies nothing here is
 * truncated — it is where the cards' "… N more" point to.
 */
export function renderTimelineMarkdown(job: TimelineJobInfo, events: TimelineEvent[], userNames: ReadonlyMap<string, string> = new Map()): string {
  names = userNames;
  try {
    return renderWithNames(job, events);
  } finally {
    names = new Map();
  }
}

function renderWithNames(job: TimelineJobInfo, events: TimelineEvent[]): string {
  const sorted = [...events].sort((a, b) => a.at - b.at);
  const summary = [...sorted].reverse().find((e) => e.kind === 'summary');
  const out: string[] = [`# EKS upgrade timeline · ${job.cluster} ${job.from} → ${job.to}`, ''];
  out.push(`- Job: \`${job.jobId}\``);
  out.push(`- Requested by: ${plainUser(job.requestedBy)}`);
  out.push(`- Started: ${formatUtcDateTime(job.startedAt)}`);
  if (summary?.kind === 'summary') {
    out.push(`- Ended: ${formatUtcDateTime(summary.at)} (${formatDuration(summary.at - job.startedAt)} in all)`);
    out.push(`- Result: ${STATE_LABELS[summary.state].label}`);
  } else {
    out.push('- Result: still running when this file was exported');
  }

  out.push('', '## Steps', '');
  const rows = stepRows(sorted);
  if (rows.length === 0) out.push('No step has started yet.');
  else {
    out.push('| Step | Started (UTC) | Ended (UTC) | Duration | Outcome |', '|---|---|---|---|---|');
    for (const row of rows) {
      const started = row.startedAt !== undefined ? formatUtcDateTime(row.startedAt) : '—';
      const ended = row.endedAt !== undefined ? formatUtcDateTime(row.endedAt) : '—';
      const duration = row.durationMs !== undefined ? formatDuration(row.durationMs) : '—';
      out.push(`| ${cell(row.title)} | ${started} | ${ended} | ${duration} | ${cell(plainMentions(row.outcome))} |`);
    }
  }

  out.push('', '## Decisions', '');
  const answers = sorted.filter((e) => e.kind === 'gate-answered');
  if (answers.length === 0) out.push('No gate was answered.');
  else {
    out.push('| Gate | Decision | By | At (UTC) | Reason |', '|---|---|---|---|---|');
    for (const a of answers) {
      const by = a.action === 'timeout' ? '— (timed out)' : plainUser(a.by);
      const verb = a.action === 'timeout' ? 'timed out' : VERBS[a.action];
      out.push(`| ${cell(a.gate.title)} | ${verb} | ${cell(by)} | ${formatUtcDateTime(a.at)} | ${cell(a.reason ?? '')} |`);
    }
  }

  out.push('', '## Events', '');
  for (const event of sorted) {
    const [first, ...rest] = describe(event).map(plainMentions);
    out.push(`- ${formatUtcDateTime(event.at)} — ${first}`);
    for (const line of rest) out.push(`  - ${line}`);
  }
  return `${out.join('\n')}\n`;
}
