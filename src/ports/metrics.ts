/**
 * What the bot counts and times, as call sites see it: one method per fact, labels as arguments, no registry in
 * sight. The Prometheus adapter (src/prometheus/prom-client-metrics.ts) turns these into the series docs/permissions.md
 * lists; `noMetrics` is for tests and tools that do not export any.
 */

import type { CommandOutcome } from './slack/slash-command.js';

export interface Metrics {
  countCommand(subcommand: string, outcome: CommandOutcome): void;
  countAction(action: string, outcome: string): void;
  /** Seconds from receiving a slash command or click to acknowledging it (Slack gives up at 3 s). */
  observeAckSeconds(seconds: number): void;
  /** An upgrade job reached a final state: succeeded, failed or aborted. */
  countUpgrade(state: string): void;
  /** A step finished (done, skipped, dry-run) or failed, with its kind and how long it ran. */
  observeStepSeconds(kind: string, outcome: string, seconds: number): void;
  /** How long a gate waited for its answer. */
  observeGateWaitSeconds(seconds: number): void;
  /** One Slack call of the thread outbox: its outcome (ok, retry, dropped) and latency. */
  observeOutboxSendSeconds(outcome: string, seconds: number): void;
  /** Reads the number of queued thread posts when metrics are scraped. */
  trackOutboxDepth(read: () => Promise<number>): void;
  /** One AWS API call: service (eks, ssm, ec2, sts, autoscaling), operation, and the error name when it failed. */
  countAwsCall(service: string, operation: string, error?: string): void;
  /** One Kubernetes API request: verb and resource (e.g. "patch", "nodepools"), and the HTTP code when it failed. */
  countKubeCall(verb: string, resource: string, errorCode?: number): void;
}

/** The text GET /metrics serves, wherever it is served (the Slack app's port, or a worker's own). */
export interface MetricsExposition {
  render(): Promise<{ contentType: string; body: string }>;
}

export const noMetrics: Metrics = {
  countCommand: () => undefined,
  countAction: () => undefined,
  observeAckSeconds: () => undefined,
  countUpgrade: () => undefined,
  observeStepSeconds: () => undefined,
  observeGateWaitSeconds: () => undefined,
  observeOutboxSendSeconds: () => undefined,
  trackOutboxDepth: () => undefined,
  countAwsCall: () => undefined,
  countKubeCall: () => undefined,
};
