import { performance } from 'node:perf_hooks';
import type { SlackMetrics } from './metrics.js';

/**
 * Ack latency as Slack sees it, minus the network: the receiver stamps each request when it has been read and
 * verified (Bolt's customPropertiesExtractor puts the stamp on the listener's context), and the listener records
 * the time once its ack() has resolved.
 */
export function stampReceivedAt(): { receivedAt: number } {
  return { receivedAt: performance.now() };
}

/** Records and returns the seconds since the request was received; undefined when the request carries no stamp. */
export function observeAck(metrics: SlackMetrics, context: Record<string, unknown>): number | undefined {
  const receivedAt = context.receivedAt;
  if (typeof receivedAt !== 'number') return undefined;
  const seconds = (performance.now() - receivedAt) / 1000;
  metrics.observeAckSeconds(seconds);
  return seconds;
}
