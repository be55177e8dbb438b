import { startLocalDaemon, type LocalDaemon } from './local-daemon.js';
import type { Tool } from './required-tool.js';

/** Debian's `prometheus` package (2.42 on bookworm); `.ci/run` installs it when missing. */
export const PROMETHEUS: Tool = {
  command: '/usr/bin/prometheus',
  versionArgs: ['--version'],
  install: 'apt-get install -y --no-install-recommends prometheus (.ci/run does)',
};

export interface StartPrometheusOptions {
  /** host:port of each target to scrape (one job, `sim`). */
  scrapeTargets: string[];
  /** Default /metrics. */
  metricsPath?: string;
  /** A rule file's YAML text (https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/). */
  rules?: string;
  /** Where firing alerts are sent, e.g. startAlertmanager()'s url. */
  alertmanagerUrl?: string;
  /** Default 1 (the scrape_interval: 1s, so a test sees a change within seconds). */
  scrapeIntervalSeconds?: number;
  /** Default 1. */
  evaluationIntervalSeconds?: number;
}

/**
 * A real Prometheus for a test, on a free port with a temporary TSDB; the generated prometheus.yml follows
 * https://prometheus.io/docs/prometheus/latest/configuration/configuration/. JSON is YAML, so the config is written
 * as JSON (no hand-built YAML quoting).
 */
export function startPrometheus(opts: StartPrometheusOptions): Promise<LocalDaemon> {
  const scrape = `${opts.scrapeIntervalSeconds ?? 1}s`;
  const evaluation = `${opts.evaluationIntervalSeconds ?? 1}s`;
  const files: Record<string, string> = {};
  const config: Record<string, unknown> = {
    global: { scrape_interval: scrape, scrape_timeout: scrape, evaluation_interval: evaluation },
    scrape_configs: [{ job_name: 'sim', metrics_path: opts.metricsPath ?? '/metrics', static_configs: [{ targets: opts.scrapeTargets }] }],
  };
  if (opts.rules !== undefined) {
    files['rules.yml'] = opts.rules;
    config.rule_files = ['rules.yml'];
  }
  if (opts.alertmanagerUrl !== undefined) {
    const am = new URL(opts.alertmanagerUrl);
    config.alerting = {
      alertmanagers: [{ scheme: am.protocol.replace(':', ''), path_prefix: am.pathname, static_configs: [{ targets: [am.host] }] }],
    };
  }
  files['prometheus.yml'] = JSON.stringify(config, null, 2);
  return startLocalDaemon({
    tool: PROMETHEUS,
    files,
    args: (dir, listen, externalUrl) => [
      `--config.file=${dir}/prometheus.yml`,
      `--storage.tsdb.path=${dir}/data`,
      `--web.listen-address=${listen}`,
      `--web.external-url=${externalUrl}`,
      // Debian's build looks for its console templates under /etc/prometheus; the tests need none.
      `--web.console.templates=${dir}`,
      `--web.console.libraries=${dir}`,
      // Prometheus re-sends a firing alert every resend-delay (default 1m); alerts raised before the notifier has
      // discovered the Alertmanager (its discovery batches updates every 5 s) are dropped until then, so a test
      // would wait a minute for its first alert. Re-sending at the evaluation interval brings it within seconds.
      `--rules.alert.resend-delay=${evaluation}`,
      '--log.level=warn',
    ],
  });
}
