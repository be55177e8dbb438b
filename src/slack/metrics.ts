/** The Slack surface's view of the Metrics port (src/ports/metrics.ts), kept as a name for the call sites in actions/. */

import type { Metrics } from '../ports/metrics.js';

export type { CommandOutcome } from '../ports/slack/slash-command.js';
export type SlackMetrics = Pick<Metrics, 'countCommand' | 'countAction' | 'observeAckSeconds'>;
