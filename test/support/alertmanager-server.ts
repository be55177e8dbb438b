import { startLocalDaemon, type LocalDaemon } from './local-daemon.js';
import type { Tool } from './required-tool.js';

/** Debian's `prometheus-alertmanager` package (0.25 on bookworm); `.ci/run` installs it when missing. */
export const ALERTMANAGER: Tool = {
  command: '/usr/bin/prometheus-alertmanager',
  versionArgs: ['--version'],
  install: 'apt-get install -y --no-install-recommends prometheus-alertmanager (.ci/run does)',
};

/**
 * A real Alertmanager for a test: its own storage path, gossip off (`--cluster.listen-address=` empty: a single
 * instance, https://github.com/prometheus/alertmanager#high-availability), and one receiver that sends nowhere —
 * alerts are read back through its API (/api/v2/alerts), which is what a guard does.
 */
export function startAlertmanager(): Promise<LocalDaemon> {
  const config = { route: { receiver: 'nowhere', group_wait: '0s', group_interval: '1s', repeat_interval: '1h' }, receivers: [{ name: 'nowhere' }] };
  return startLocalDaemon({
    tool: ALERTMANAGER,
    files: { 'alertmanager.yml': JSON.stringify(config, null, 2) },
    args: (dir, listen, externalUrl) => [
      `--config.file=${dir}/alertmanager.yml`,
      `--storage.path=${dir}/data`,
      `--web.listen-address=${listen}`,
      `--web.external-url=${externalUrl}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
  });
}
