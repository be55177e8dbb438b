import type { UpgradeState } from '../src/ports/timeline-event.js';
import type { JobSummary } from '../src/ports/upgrade-control.js';
import type { RolloutSummary } from '../src/ports/rollout-control.js';
import type { SlackMessage } from '../src/ports/slack/slack-message.js';
import { attempt } from './routing/command-failure.js';
import { clustersVisibleFrom, type CommandHandler } from './routing/command-context.js';
import { readArgs } from './routing/parse-command.js';
import { threadLink } from './routing/thread-link.js';
import { chunkLines, fallbackText, mrkdwnSection } from '../src/report/blocks/block-kit-limits.js';

export const JOBS_LIMIT = 15;

/** `/eks-upgrade jobs [<cluster>]`: running and recent upgrade jobs of this channel's clusters. */
export const jobsCommand: CommandHandler = async (context) => {
  const command = readArgs('jobs', context.args);
  const visible = new Set(clustersVisibleFrom(context.deps, context.channelId).map((cluster) => cluster.name));
  const jobs = (await attempt('Listing upgrade jobs', () => context.deps.control.listJobs(command.target, JOBS_LIMIT * 2)))
    .filter((job) => visible.has(job.cluster));
  const message = renderJobs(jobs.slice(0, JOBS_LIMIT), context.deps.clock.now(), command.target ?? [...visible].join(', '));
  const rollouts = (await attempt('Listing rollouts', async () => (await context.deps.rollouts?.list(10)) ?? []))
    .filter((rollout) => rollout.channel === context.channelId && (!command.target || rollout.waves.some((wave) => wave.clusters.includes(command.target!))));
  if (rollouts.length > 0) {
    const text = `*Rollouts*\n${rollouts.map(rolloutLine).join('\n')}`;
    message.blocks = [...(message.blocks ?? []), ...chunkLines(text.split('\n')).map((chunk) => mrkdwnSection(chunk))];
    message.text = fallbackText(`${message.text}\n${text}`);
  }
  await context.respond(message);
};

/** "`r1a2b3c4` → 1.32: wave 2 of 3 (staging-*), soaking; 1 of 5 clusters done, started by @x". */
export function rolloutLine(rollout: RolloutSummary): string {
  const total = rollout.waves.reduce((n, wave) => n + wave.clusters.length, 0);
  const done = Object.values(rollout.results).filter((state) => state === 'succeeded').length;
  const wave = rollout.waves[rollout.wave];
  const state = rollout.state === 'gate' ? 'waiting for an approver' : rollout.state;
  const why = rollout.reason && (rollout.state === 'failed' || rollout.state === 'aborted') ? ` (${rollout.reason})` : '';
  return `:ocean: \`${rollout.id}\` → ${rollout.to}: wave ${rollout.wave + 1} of ${rollout.waves.length} (${wave?.globs.join(' ') ?? ''}), ${state}${rollout.paused ? ', paused' : ''}${why}; ${done} of ${total} clusters done, started by <@${rollout.requestedBy}>`;
}

const ICON: Record<UpgradeState, string> = {
  queued: ':hourglass_flowing_sand:',
  running: ':arrows_counterclockwise:',
  'waiting-approval': ':raised_hand:',
  paused: ':double_vertical_bar:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  aborted: ':octagonal_sign:',
};

const FINISHED: UpgradeState[] = ['succeeded', 'failed', 'aborted'];

export function renderJobs(jobs: JobSummary[], now: number, scope: string): SlackMessage {
  if (jobs.length === 0) {
    const text = `No upgrade jobs yet for ${scope}.`;
    return { text, blocks: [mrkdwnSection(text)] };
  }
  const active = jobs.filter((job) => !FINISHED.includes(job.state));
  const recent = jobs.filter((job) => FINISHED.includes(job.state));
  const sections = [
    ...(active.length > 0 ? [`*Running*\n${active.map((job) => jobLine(job, now)).join('\n')}`] : []),
    ...(recent.length > 0 ? [`*Recent*\n${recent.map((job) => jobLine(job, now)).join('\n')}`] : []),
  ];
  return {
    text: fallbackText(sections.join('\n')),
    blocks: sections.flatMap((text) => chunkLines(text.split('\n'))).map((text) => mrkdwnSection(text)),
  };
}

export function jobLine(job: JobSummary, now: number): string {
  const state = FINISHED.includes(job.state)
    ? `${job.state} ${ago(now - (job.finishedAt ?? job.startedAt))}`
    : `${job.state}, step ${job.currentStep}`;
  const dryRun = job.dryRun ? ' (dry run)' : '';
  return `${ICON[job.state]} *${job.cluster}* ${job.from} → ${job.to}${dryRun}: ${state}. Job \`${job.jobId}\`, started by <@${job.requestedBy}> ${ago(now - job.startedAt)}, ${threadLink(job.thread)}`;
}

export function ago(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}
