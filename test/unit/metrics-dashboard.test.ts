import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createPrometheusMetrics } from '../../src/prometheus/prom-client-metrics.js';

/**
 * The example Grafana dashboard queries exactly the series the bot exports: every series name in a query exists in
 * the registry (histograms through their _bucket/_sum/_count), every label it groups by is one the series has,
 * and every `eks_upgrade_…` series appears on some panel.
 */
const dashboard = JSON.parse(readFileSync('deploy/components/prometheus/grafana-dashboard.json', 'utf8')) as {
  panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
};
const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
const registry = createPrometheusMetrics();
const exported = new Set(registry.seriesNames());
// Labels Prometheus adds to every scraped series (ServiceMonitor target labels), besides the series' own.
const TARGET_LABELS = ['namespace', 'pod', 'instance', 'job', 'service', 'container', 'endpoint', 'le'];

function seriesOf(name: string): string {
  if (exported.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return exported.has(base) ? base : name;
}

describe('deploy/components/prometheus/grafana-dashboard.json', () => {
  const used = exprs.flatMap((expr) => [...expr.matchAll(/\b((?:eks_upgrade|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]));

  it('queries only series the bot exports', () => {
    expect(used.length).toBeGreaterThan(15);
    expect(used.filter((name) => !exported.has(seriesOf(name)))).toEqual([]);
  });

  it('shows every eks_upgrade series on some panel', () => {
    const shown = new Set(used.map(seriesOf));
    expect([...exported].filter((name) => name.startsWith('eks_upgrade_') && !shown.has(name))).toEqual([]);
  });

  it('groups only by labels the series carry', async () => {
    registry.countCommand('help', 'ok');
    registry.countAction('gate:continue', 'accepted');
    registry.countUpgrade('succeeded');
    registry.observeStepSeconds('control-plane', 'done', 12);
    registry.observeOutboxSendSeconds('ok', 0.1);
    registry.countAwsCall('eks', 'DescribeCluster', 'AccessDeniedException');
    registry.countKubeCall('patch', 'nodepools', 403);
    const text = (await registry.render()).body;
    for (const expr of exprs) {
      const series = seriesOf(/\b((?:eks_upgrade)_[a-z0-9_]+)\b/.exec(expr)?.[1] ?? '');
      if (!series.startsWith('eks_upgrade_')) continue;
      const sample = text.split('\n').find((line) => line.startsWith(`${series}`) && line.includes('{')) ?? '';
      const labels = [...sample.matchAll(/(\w+)="/g)].map((m) => m[1]);
      for (const [, by] of expr.matchAll(/by \(([^)]*)\)/g)) {
        for (const label of by.split(',').map((l) => l.trim())) {
          if (!TARGET_LABELS.includes(label)) expect({ expr, label, has: labels.includes(label) }).toEqual({ expr, label, has: true });
        }
      }
    }
  });
});
