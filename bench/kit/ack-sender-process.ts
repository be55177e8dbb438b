import { deliverToBot, type DeliveryRequest } from '@eks-upgrade-bot/sim/services';

/**
 * The sending side of Slack for bench P1, in a process of its own: each request the driver passes over IPC is
 * delivered to the bot (signed, Slack's 3 s patience) and timed here, where nothing else runs. The driver's own
 * event loop also serves the fake Slack's Web API, which answers the bot's response_url and chat.postMessage calls;
 * timed there, an ack would wait behind the bot's own follow-up work, and a bare Bolt app that sends nothing would not.
 */
process.on('message', (message: { id: number; request: DeliveryRequest }) => {
  void deliverToBot(message.request).then((result) => process.send?.({ id: message.id, result }));
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
