import { GUARDS_HEADING, guardStatusText } from './guard-status.js';
import type { ClusterStatus } from './cluster-status.js';
import { textTable } from './text-table.js';
import {
  addonSummary,
  addonUpdateText,
  clusterKubeletSummary,
  computeText,
  insightsText,
  jobText,
  kubeletText,
  nextText,
  skewText,
  supportText,
  worstSkew,
} from './status-words.js';

/**
 * `eks-upgrade status` in a terminal: one cluster as a card with NODES and ADD-ONS tables, several clusters (or
 * `--all`, `table: true`) as one table with a row per cluster (error rows included). Pure.
 */
export function renderStatusText(statuses: ClusterStatus[], options: { table?: boolean } = {}): string {
  if (statuses.length === 1 && !options.table) return renderOne(statuses[0]);
  return renderMany(statuses);
}

function renderOne(status: ClusterStatus): string {
  if (status.error) return `${status.name} (${status.region}): could not be read: ${status.error}\n`;
  const next = status.support?.nextMinor;
  const lines = [
    `${status.name}  ${status.region}  ${status.version} (${status.platformVersion ?? '?'})  ${status.status}`,
    ...textTable(
      ['', ''],
      [
        ['Support', `${supportText(status.support)}; upgrade policy ${status.support?.upgradePolicy ?? 'unknown'}`],
        ['Next', nextText(status.support)],
        ['Insights', insightsText(status)],
        ['Upgrade job', status.activeJob ? `${jobText(status)} ${status.activeJob.threadUrl}` : 'none'],
        ...(status.rollback ? [['Rollback', `${status.rollback.text}${status.rollback.blocking.length > 0 ? `; blocking now: ${status.rollback.blocking.join('; ')}` : ''}`]] : []),
      ],
    ).slice(1),
    '',
    'NODES',
    ...(status.nodes.length > 0
      ? textTable(
          ['TYPE', 'NAME', 'NODES', 'KUBELET', 'SKEW'],
          status.nodes.map((g) => [computeText(g), g.name, String(g.nodes), kubeletText(g), skewText(g)]),
          '  ',
        )
      : ['  none read']),
    '',
    'ADD-ONS',
    ...(status.addons.length > 0
      ? textTable(
          ['NAME', 'INSTALLED', `DEFAULT ${status.version ?? ''}`.trim(), `DEFAULT ${next ?? 'NEXT'}`, 'UPDATE'],
          status.addons.map((a) => [a.name, a.version, a.defaultForCurrent ?? '?', a.defaultForNext ?? '?', addonUpdateText(a, next)]),
          '  ',
        )
      : ['  none read']),
  ];
  if (status.guards) lines.push('', `GUARDS — ${GUARDS_HEADING.replace(/^Guards \(|\)$/g, '')}`, ...(status.guards.unread ? [`  ${status.guards.unread}`] : status.guards.rows.map((row) => `  ${guardStatusText(row)}`)));
  if (status.problems.length > 0) lines.push('', 'NOT READ', ...status.problems.map((p) => `  ${p}`));
  return `${lines.join('\n')}\n`;
}

function renderMany(statuses: ClusterStatus[]): string {
  const rows = statuses.map((s) =>
    s.error
      ? [s.name, s.region, '-', '-', 'ERROR', '-', '-', '-', '-', '-', `could not be read: ${s.error}`]
      : [
          s.name,
          s.region,
          s.version ?? '?',
          s.platformVersion ?? '?',
          s.status ?? '?',
          supportText(s.support),
          clusterKubeletSummary(s),
          worstSkew(s),
          addonSummary(s),
          s.insights ? `${s.insights.error}E ${s.insights.warning}W` : 'not read',
          [s.activeJob ? `job ${s.activeJob.from}→${s.activeJob.to} ${s.activeJob.state}` : '', s.problems.length > 0 ? `not read: ${s.problems.join('; ')}` : '']
            .filter(Boolean)
            .join('; ') || '-',
        ],
  );
  const failed = statuses.filter((s) => s.error).length;
  const lines = textTable(['CLUSTER', 'REGION', 'VERSION', 'PLATFORM', 'STATUS', 'SUPPORT', 'KUBELETS', 'SKEW', 'ADD-ONS', 'INSIGHTS', 'NOTES'], rows);
  lines.push('', `${statuses.length} cluster${statuses.length === 1 ? '' : 's'}${failed ? `, ${failed} could not be read` : ''}`);
  return `${lines.join('\n')}\n`;
}
