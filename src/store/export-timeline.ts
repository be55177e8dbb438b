import type { ThreadPort, ThreadRef } from '../ports/thread-port.js';
import { renderTimelineMarkdown } from '../slack/render/render-timeline-markdown.js';
import type { TimelineLog } from './timeline-log.js';

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
  const markdown = renderTimelineMarkdown(
    { cluster: job.cluster, from: job.from, to: job.to, jobId: job.jobId, requestedBy: job.requestedBy, startedAt: job.startedAt },
    events,
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
