import type { App, ReceiverEvent } from '@slack/bolt';

/**
 * Socket Mode: Slack expects every envelope that carries an `envelope_id` to be acknowledged, whatever its type
 * ("Your app must respond to each envelope with an acknowledgement … including the envelope_id",
 * https://docs.slack.dev/apis/events-api/using-socket-mode). Bolt's SocketModeReceiver acks only when a listener
 * calls ack(), so envelopes no listener takes (view_closed, shortcut, an event type we do not handle) would stay
 * unacked and be retried. HTTPReceiver answers those itself; this does the same once Bolt has processed the
 * envelope: the listeners that ack early still ack first, and exactly once.
 */
export function ackEveryEnvelope(app: App): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = async (event: ReceiverEvent): Promise<void> => {
    let acked = false;
    const ack: ReceiverEvent['ack'] = async (response) => {
      acked = true;
      await event.ack(response);
    };
    try {
      await processEvent({ ...event, ack });
    } finally {
      if (!acked) await event.ack(undefined).catch(() => undefined);
    }
  };
}
