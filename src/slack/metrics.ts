import type { Metrics } from '../ports/metrics.js';

/** The Slack surface's view of the Metrics port (kept as a name for the call sites in actions/). */
export type { CommandOutcome } from '../ports/metrics.js';
export type SlackMetrics = Pick<Metrics, 'countCommand' | 'countAction' | 'observeAckSeconds'>;
