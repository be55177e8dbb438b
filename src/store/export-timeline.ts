import type { ThreadPort, ThreadRef } from '../ports/slack/thread-port.js';
import { renderTimelineMarkdown } from '../report/blocks/render-timeline-markdown.js';
import type { TimelineLog } from './timeline-log.js';
import type { TimelineEvent } from '../ports/timeline-event.js';

/** The Slack user IDs a timeline names: its requester, who answered gates, and every <@U…> in its texts. */
function userIdsIn(requestedBy: string, events: TimelineEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const text of [requestedBy, JSON.stringify(events)]) {
    for (const match of text.matchAll(/(?:<@|^)([UW][A-Z0-9]{2,})(?=>|$)/g)) ids.add(match[1]);
  }
  for (const event of events) if (event.kind === 'gate-answered' && /^[UW][A-Z0-9]{2,}$/.test(event.by)) ids.add(event.by);
  return ids;
}

export interface TimelineJob {
  jobId: string;
  cluster: string;
  from: string;
  to: string;
  requestedBy: string;
  startedAt: number;
  thread: ThreadRef;
}

/**
 * Renders the job's append-only timeline (Redis, independent of Slack) as Markdown and queues it for upload into
 * the thread under `key`: once per key, so the end-of-job export is never uploaded twice, while an export asked
 * for on demand uses a key of its own.
 */
export async function exportTimeline(
  deps: { timeline: TimelineLog; thread: ThreadPort },
  job: TimelineJob,
  key: string,
): Promise<number> {
  const events = (await deps.timeline.read(job.jobId)).map((entry) => entry.event);
  // People by name with their ID (`@bob (U0BOB)`): a downloaded file has no Slack to render <@U0BOB>.
  const ids = userIdsIn(job.requestedBy, events);
  const names = new Map<string, string>();
  for (const id of ids) {
    const name = await deps.thread.userName?.(id);
    if (name) names.set(id, name);
  }
  const markdown = renderTimelineMarkdown(
    { cluster: job.cluster, from: job.from, to: job.to, jobId: job.jobId, requestedBy: job.requestedBy, startedAt: job.startedAt },
    events,
    names,
  );
  await deps.thread.uploadMarkdown(
    job.thread,
    key,
    `eks-upgrade-${job.cluster}-${job.from}-to-${job.to}-${job.jobId}.md`,
    `Timeline of the ${job.cluster} upgrade ${job.from} → ${job.to}`,
    markdown,
  );
  return events.length;
}
