import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metrics, MetricsExposition } from '../ports/metrics.js';
import type { CommandOutcome } from '../ports/slack/slash-command.js';

/**
 * The Metrics port over prom-client: Node's process metrics under their standard names (process_cpu_seconds_total,
 * process_resident_memory_bytes, nodejs_eventloop_lag_seconds, …) plus the bot's own `eks_upgrade_…` series, in one
 * registry per process served at GET /metrics. Label values are bounded: subcommands, action ids, step kinds,
 * AWS operations and Kubernetes verb/resource pairs come from the code, never from user input.
 */
export interface PrometheusMetrics extends Metrics, MetricsExposition {
  /** Every series name this registry exports (the dashboard test checks its queries against these). */
  seriesNames(): string[];
}

// Seconds. Slack gives up at 3 s; anything past 0.5 s deserves a look.
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3];
// Steps run from under a second (preflight) to hours (a 1000-node Karpenter drift).
const STEP_BUCKETS = [1, 5, 15, 60, 300, 900, 1800, 3600, 7200, 14400, 28800];
const GATE_BUCKETS = [10, 60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400];
const SEND_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

export function createPrometheusMetrics(options: { defaultLabels?: Record<string, string> } = {}): PrometheusMetrics {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const commands = new Counter({ name: 'eks_upgrade_commands_total', help: 'Slash commands handled, by subcommand and outcome.', labelNames: ['subcommand', 'outcome'], registers });
  const actions = new Counter({ name: 'eks_upgrade_actions_total', help: 'Button clicks and modal submissions handled, by action and outcome.', labelNames: ['action', 'outcome'], registers });
  const ack = new Histogram({ name: 'eks_upgrade_ack_seconds', help: 'Time from receiving a slash command or click to acknowledging it.', buckets: ACK_BUCKETS, registers });
  const upgrades = new Counter({ name: 'eks_upgrade_upgrades_total', help: 'Upgrade jobs that reached a final state, by state (succeeded, failed, aborted).', labelNames: ['state'], registers });
  const steps = new Histogram({ name: 'eks_upgrade_step_duration_seconds', help: 'Duration of upgrade steps, by step kind and outcome.', labelNames: ['kind', 'outcome'], buckets: STEP_BUCKETS, registers });
  const gateWait = new Histogram({ name: 'eks_upgrade_gate_wait_seconds', help: 'How long gates waited for an approver.', buckets: GATE_BUCKETS, registers });
  const outboxSend = new Histogram({ name: 'eks_upgrade_outbox_send_seconds', help: 'Latency of the thread outbox\'s Slack calls, by outcome.', labelNames: ['outcome'], buckets: SEND_BUCKETS, registers });
  const depthReaders: Array<() => Promise<number>> = [];
  new Gauge({
    name: 'eks_upgrade_outbox_depth',
    help: 'Thread posts queued in the outbox and not yet delivered to Slack.',
    registers,
    async collect() {
      // Read at scrape time from Redis: the queue is shared by every process, so any one of them can report it.
      const depths = await Promise.all(depthReaders.map((read) => read().catch(() => Number.NaN)));
      this.set(depths.length ? depths.reduce((a, b) => a + b, 0) : 0);
    },
  });
  const awsCalls = new Counter({ name: 'eks_upgrade_aws_calls_total', help: 'AWS API calls, by service and operation.', labelNames: ['service', 'operation'], registers });
  const awsErrors = new Counter({ name: 'eks_upgrade_aws_errors_total', help: 'AWS API calls that failed, by service, operation and error name.', labelNames: ['service', 'operation', 'error'], registers });
  const kubeCalls = new Counter({ name: 'eks_upgrade_kube_calls_total', help: 'Kubernetes API requests, by verb and resource.', labelNames: ['verb', 'resource'], registers });
  const kubeErrors = new Counter({ name: 'eks_upgrade_kube_errors_total', help: 'Kubernetes API requests that failed, by verb, resource and HTTP code (0: unreachable).', labelNames: ['verb', 'resource', 'code'], registers });

  return {
    countCommand: (subcommand: string, outcome: CommandOutcome) => commands.inc({ subcommand, outcome }),
    countAction: (action, outcome) => actions.inc({ action, outcome }),
    observeAckSeconds: (seconds) => ack.observe(seconds),
    countUpgrade: (state) => upgrades.inc({ state }),
    observeStepSeconds: (kind, outcome, seconds) => steps.observe({ kind, outcome }, seconds),
    observeGateWaitSeconds: (seconds) => gateWait.observe(seconds),
    observeOutboxSendSeconds: (outcome, seconds) => outboxSend.observe({ outcome }, seconds),
    trackOutboxDepth: (read) => void depthReaders.push(read),
    countAwsCall(service, operation, error) {
      awsCalls.inc({ service, operation });
      if (error) awsErrors.inc({ service, operation, error });
    },
    countKubeCall(verb, resource, errorCode) {
      kubeCalls.inc({ verb, resource });
      if (errorCode !== undefined) kubeErrors.inc({ verb, resource, code: String(errorCode) });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    seriesNames: () => registry.getMetricsAsArray().map((metric) => metric.name),
  };
}
