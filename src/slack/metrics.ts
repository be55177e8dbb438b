/**
 * A few counters for GET /metrics in the Prometheus text format (version 0.0.4): slash commands by subcommand and
 * outcome, interactive actions by action and outcome, and a histogram of how long Slack waited for our ack —
 * the number that must stay well under Slack's 3 s. Small on purpose: no client library for five series.
 */

import type { CommandOutcome } from '../ports/slash-command.js';

export type { CommandOutcome };

export interface SlackMetrics {
  countCommand(subcommand: string, outcome: CommandOutcome): void;
  countAction(action: string, outcome: string): void;
  observeAckSeconds(seconds: number): void;
  render(): string;
}

// Seconds. Slack gives up at 3 s; anything past 0.5 s deserves a look.
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3];

export function createSlackMetrics(): SlackMetrics {
  const commands = new Map<string, number>();
  const actions = new Map<string, number>();
  const ackBuckets = ACK_BUCKETS.map(() => 0);
  let ackCount = 0;
  let ackSum = 0;

  const increment = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  return {
    countCommand(subcommand, outcome) {
      increment(commands, labels({ subcommand, outcome }));
    },
    countAction(action, outcome) {
      increment(actions, labels({ action, outcome }));
    },
    observeAckSeconds(seconds) {
      ackCount++;
      ackSum += seconds;
      ACK_BUCKETS.forEach((bound, index) => {
        if (seconds <= bound) ackBuckets[index]++;
      });
    },
    render() {
      const lines = [
        '# HELP eks_upgrade_commands_total Slash commands handled, by subcommand and outcome.',
        '# TYPE eks_upgrade_commands_total counter',
        ...[...commands].map(([key, value]) => `eks_upgrade_commands_total{${key}} ${value}`),
        '# HELP eks_upgrade_actions_total Button clicks and modal submissions handled, by action and outcome.',
        '# TYPE eks_upgrade_actions_total counter',
        ...[...actions].map(([key, value]) => `eks_upgrade_actions_total{${key}} ${value}`),
        '# HELP eks_upgrade_ack_seconds Time from receiving a slash command or click to acknowledging it.',
        '# TYPE eks_upgrade_ack_seconds histogram',
        ...ACK_BUCKETS.map((bound, index) => `eks_upgrade_ack_seconds_bucket{le="${bound}"} ${ackBuckets[index]}`),
        `eks_upgrade_ack_seconds_bucket{le="+Inf"} ${ackCount}`,
        `eks_upgrade_ack_seconds_sum ${ackSum}`,
        `eks_upgrade_ack_seconds_count ${ackCount}`,
      ];
      return `${lines.join('\n')}\n`;
    },
  };
}

function labels(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',');
}
