import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { SLACK_ACK_TIMEOUT_MS, slackDeliveryHeaders, type DeliveryRequest, type DeliveryResult } from '@eks-upgrade-bot/sim/services';

/**
 * The sending side of Slack for bench P1, in a process of its own: each request the driver passes over IPC is
 * delivered to the bot (signed, Slack's 3 s patience) and timed here, where nothing else runs. The driver's own
 * event loop also serves the fake Slack's Web API, which answers the bot's response_url and chat.postMessage calls;
 * timed there, an ack would wait behind the bot's own follow-up work, and a bare Bolt app that sends nothing would not.
 *
 * The requests go out through node's http with a keep-alive agent, not `fetch` (deliverToBot): the sender shares the
 * two cores with what it measures, and fetch cost it 2.2 ms of CPU a request, more than the bot's web process spent
 * answering it (bench P1, 7 December). Slack's senders are not on the app's machine; the less this one takes, the
 * closer the figure is to what Slack measures. The headers and the signature are deliverToBot's own.
 */
// Idle connections close after 2 s, before the bot's HTTP server closes them (node's default keep-alive timeout,
// 5 s): a request never goes out on a connection the server is closing.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity, timeout: 2_000 });

function deliver(delivery: DeliveryRequest): Promise<DeliveryResult> {
  const headers = slackDeliveryHeaders(delivery);
  headers['content-length'] = String(Buffer.byteLength(delivery.body));
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Omit<DeliveryResult, 'ackMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, ackMs: performance.now() - started });
    };
    const outgoing = httpRequest(delivery.url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => settle({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => settle({ status: 0, body: 'dispatch_failed' }));
    });
    const timer = setTimeout(() => {
      settle({ status: 0, body: 'operation_timeout' });
      outgoing.destroy();
    }, delivery.timeoutMs ?? SLACK_ACK_TIMEOUT_MS);
    outgoing.on('error', () => settle({ status: 0, body: 'dispatch_failed' }));
    outgoing.end(delivery.body);
  });
}

process.on('message', (message: { id: number; request: DeliveryRequest }) => {
  void deliver(message.request).then((result) => process.send?.({ id: message.id, result }));
});
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
