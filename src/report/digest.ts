/**
 * The fleet readiness digest (docs/fleet.md): one row per cluster — version, end of standard support
 * and the days left, what extended support would cost a month if it lapses at the current price, blocking
 * findings of the next upgrade, the oldest kubelet and the running job — sorted by urgency, rendered as one Slack
 * message with a Plan button per cluster (src/report/blocks/render-digest-blocks.ts), or as a terminal table. Pure: rows are built from a snapshot, its status
 * and its plan, on the time given (the bot's Clock).
 */

import type { ClusterSnapshot } from '../planning/cluster-snapshot.js';
import { unwaivedErrors } from '../ports/finding.js';
import type { UpgradePlan } from '../ports/upgrade-plan.js';
import type { ClusterStatus } from './cluster-status.js';
import { textTable } from './text-table.js';

/** EKS prices per cluster-hour (reference: eks.md): standard support and extended support. */
export const STANDARD_SUPPORT_PER_HOUR = 0.1;
export const EXTENDED_SUPPORT_PER_HOUR = 0.6;
/** AWS bills monthly estimates on 730 hours a month. */
export const HOURS_PER_MONTH = 730;
/** $438: one cluster-month in extended support at $0.60/cluster-hour. */
export const EXTENDED_SUPPORT_PER_MONTH = Math.round(EXTENDED_SUPPORT_PER_HOUR * HOURS_PER_MONTH * 100) / 100;
/** $365: what extended support adds over standard support per cluster-month. */
export const EXTENDED_SURCHARGE_PER_MONTH = Math.round((EXTENDED_SUPPORT_PER_HOUR - STANDARD_SUPPORT_PER_HOUR) * HOURS_PER_MONTH * 100) / 100;

const DAY_MS = 24 * 3600_000;

export interface DigestRow {
  cluster: string;
  region: string;
  version?: string;
  phase?: 'standard' | 'extended' | 'unsupported' | 'unknown';
  upgradePolicy?: 'STANDARD' | 'EXTENDED';
  /** ISO day. */
  endOfStandardSupport?: string;
  /** Whole days from now to the end of standard support, rounded up; negative once it has passed. */
  standardDaysLeft?: number;
  /** Extended support per month when the cluster is or would be in it (undefined when STANDARD policy auto-upgrades). */
  extendedCostPerMonth?: number;
  /** The next minor the plan looked at, and its unwaived errors. */
  nextMinor?: string;
  blocking?: number;
  /** The next upgrade's size: step count and estimate (reminders quote it). */
  planSteps?: number;
  planMinutes?: number;
  planError?: string;
  oldestKubelet?: { version: string; behind: number };
  job?: { jobId: string; state: string; to: string; threadUrl: string };
  /** The cluster could not be read. */
  error?: string;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One row from what was read (`plan` for the next minor, or why there is none). */
export function buildDigestRow(snapshot: ClusterSnapshot, status: ClusterStatus, plan: UpgradePlan | { error: string } | undefined, now: number): DigestRow {
  const base: DigestRow = { cluster: status.name, region: status.region };
  if (status.error) return { ...base, error: status.error, ...jobOf(status) };
  const version = status.version;
  const minor = version?.match(/^\d+\.\d+/)?.[0];
  const offered = snapshot.versions.ok ? snapshot.versions.value.find((entry) => entry.version === minor) : undefined;
  const end = offered?.endOfStandardSupport;
  const phase = status.support?.phase;
  const policy = status.support?.upgradePolicy;
  const lapses = phase === 'extended' || ((phase === 'standard' || phase === 'unknown') && policy !== 'STANDARD');
  const oldest = status.nodes
    .flatMap((group) => group.versions)
    .filter((entry) => entry.behind !== undefined)
    .sort((a, b) => (b.behind ?? 0) - (a.behind ?? 0))[0];
  return {
    ...base,
    version,
    phase,
    ...(policy ? { upgradePolicy: policy } : {}),
    ...(end !== undefined ? { endOfStandardSupport: isoDay(end), standardDaysLeft: Math.ceil((end - now) / DAY_MS) } : {}),
    ...(lapses ? { extendedCostPerMonth: EXTENDED_SUPPORT_PER_MONTH } : {}),
    ...(plan && 'error' in plan ? { planError: plan.error } : {}),
    ...(plan && !('error' in plan)
      ? { nextMinor: plan.to, blocking: unwaivedErrors(plan.findings).length, planSteps: plan.hops.reduce((sum, hop) => sum + hop.steps.length, 0), planMinutes: plan.estimateMinutes }
      : {}),
    ...(oldest ? { oldestKubelet: { version: `v${oldest.minor ?? oldest.kubelet}`, behind: oldest.behind ?? 0 } } : {}),
    ...jobOf(status),
  };
}

function jobOf(status: ClusterStatus): Pick<DigestRow, 'job'> {
  const job = status.activeJob;
  return job ? { job: { jobId: job.jobId, state: job.state, to: job.to, threadUrl: job.threadUrl } } : {};
}

/**
 * Most urgent first: the fewest days of standard support left (passed ones first), then more blocking findings,
 * then name; clusters whose support date is unknown follow, and those that could not be read come last.
 */
export function sortByUrgency(rows: DigestRow[]): DigestRow[] {
  const rank = (row: DigestRow) => (row.error ? 2 : row.standardDaysLeft === undefined ? 1 : 0);
  return [...rows].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.standardDaysLeft ?? 0) - (b.standardDaysLeft ?? 0) ||
      (b.blocking ?? 0) - (a.blocking ?? 0) ||
      a.cluster.localeCompare(b.cluster),
  );
}

export function formatDollars(amount: number): string {
  return `$${amount.toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
}

export function daysLeftText(row: DigestRow): string {
  if (row.standardDaysLeft === undefined) return 'unknown';
  if (row.standardDaysLeft < 0) return `ended ${-row.standardDaysLeft} day${row.standardDaysLeft === -1 ? '' : 's'} ago`;
  if (row.standardDaysLeft === 0) return 'ends today';
  return `${row.standardDaysLeft} day${row.standardDaysLeft === 1 ? '' : 's'} left`;
}

export function costText(row: DigestRow): string {
  if (row.phase === 'unsupported') return 'out of support';
  if (row.extendedCostPerMonth === undefined) return row.upgradePolicy === 'STANDARD' ? 'none (auto-upgrade)' : '—';
  const cost = `${formatDollars(row.extendedCostPerMonth)}/mo`;
  return row.phase === 'extended' ? `${cost} now` : `${cost} if it lapses`;
}

function blockingText(row: DigestRow): string {
  if (row.planError) return 'not planned';
  if (row.blocking === undefined) return '—';
  return `${row.blocking} blocking${row.nextMinor ? ` for ${row.nextMinor}` : ''}`;
}

function kubeletText(row: DigestRow): string {
  if (!row.oldestKubelet) return '—';
  const { version, behind } = row.oldestKubelet;
  return behind > 0 ? `${version} (${behind} behind)` : version;
}

function jobText(row: DigestRow, links: boolean): string {
  if (!row.job) return '—';
  const what = `${row.job.state} → ${row.job.to}`;
  return links && row.job.threadUrl ? `<${row.job.threadUrl}|${what}>` : what;
}

export const URGENCY_ICON = (row: DigestRow): string => {
  if (row.error) return ':grey_question:';
  if (row.standardDaysLeft === undefined) return ':white_circle:';
  if (row.standardDaysLeft <= 30) return ':red_circle:';
  if (row.standardDaysLeft <= 90) return ':large_orange_circle:';
  return ':large_green_circle:';
};

export interface DigestHeading {
  /** When the digest was read (the bot's Clock), shown in `timezone`. */
  at: number;
  timezone: string;
  /** E.g. "scheduled 0 9 * * MON (Europe/Berlin)" or "on demand by <@U…>". */
  trigger: string;
}

export function formatInZone(ms: number, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, weekday: 'short', year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', hour12: false }).format(new Date(ms));
  return `${parts} ${timezone}`;
}

/** "1.30 · standard support ends 2026-07-23 (51 days left) · extended $438/mo if it lapses · 2 blocking for 1.31 · oldest kubelet v1.28 (2 behind) · job —". */
export function summaryLine(row: DigestRow, links: boolean): string {
  if (row.error) return `could not be read: ${row.error}`;
  const end = row.endOfStandardSupport ? `standard support ends ${row.endOfStandardSupport} (${daysLeftText(row)})` : 'standard support end unknown';
  return [
    row.version ?? '?',
    end,
    `extended support ${costText(row)}`,
    blockingText(row),
    `oldest kubelet ${kubeletText(row)}`,
    `job ${jobText(row, links)}`,
  ].join(' · ');
}

/** The digest as an aligned terminal table (the CLI's `digest`). */
export function renderDigestText(rows: DigestRow[], at: number, timezone = 'UTC'): string {
  const sorted = sortByUrgency(rows);
  const table = textTable(
    ['CLUSTER', 'VERSION', 'STANDARD ENDS', 'DAYS LEFT', 'EXTENDED $/MO', 'BLOCKING', 'OLDEST KUBELET', 'JOB'],
    sorted.map((row) =>
      row.error
        ? [row.cluster, '?', '', '', '', '', '', `error: ${row.error}`]
        : [row.cluster, row.version ?? '?', row.endOfStandardSupport ?? '?', terminalDaysLeft(row), costText(row), blockingText(row), kubeletText(row), jobText(row, false)],
    ),
  );
  return [`Fleet digest · ${sorted.length} clusters · ${formatInZone(at, timezone)}`, ...table].join('\n');
}

/** DAYS LEFT in the terminal table: the count while support lasts, then "ended N days ago", never a negative number. */
function terminalDaysLeft(row: DigestRow): string {
  if (row.standardDaysLeft === undefined) return '?';
  return row.standardDaysLeft > 0 ? String(row.standardDaysLeft) : daysLeftText(row);
}

/** The threshold a reminder is due for now: the smallest configured day count not below the days left. */
export function reminderThreshold(row: DigestRow, daysBefore: number[]): number | undefined {
  const left = row.standardDaysLeft;
  if (left === undefined || left < 0 || row.phase !== 'standard' || row.job) return undefined;
  const crossed = daysBefore.filter((days) => left <= days);
  return crossed.length > 0 ? Math.min(...crossed) : undefined;
}
