import type { IncomingMessage, ServerResponse } from 'node:http';
import type { createBotDriver } from './bot-driver.js';
import { createFeedTracker, describeWorkspace } from './conversation-feed.js';
import type { FakeSlackState } from './fake-slack-state.js';

/**
 * The fake's client side, for a browser playing the Slack app: a server-sent-events feed of what users see, and
 * the actions a user takes (type a slash command, click a button, submit or close a modal). The actions go through
 * the same bot driver as the tests', so the bot receives signed requests exactly as from Slack.
 *
 *   GET  /client/feed            text/event-stream: `workspace`, then `message` / `ephemeral` / `view` events
 *   POST /client/command {userId, channelId, text}
 *   POST /client/click   {userId, channelId, messageTs, actionId, value?}
 *   POST /client/submit  {userId, viewId, values: {block_id: string | string[]}}
 *   POST /client/close   {userId, viewId}
 */
type BotDriver = ReturnType<typeof createBotDriver>;

const KEEPALIVE_MS = 15_000;

export class ClientRequestError extends Error {
  readonly code = 'client_request_invalid';
}

function requireString(body: Record<string, unknown>, field: string, what: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw new ClientRequestError(`${what} needs "${field}" (a non-empty string)`);
  return value;
}

export function serveFeed(state: FakeSlackState, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('workspace', describeWorkspace(state.ctx.workspace));
  const changesSince = createFeedTracker();
  const flush = () => {
    pending = false;
    for (const event of changesSince(state.conversation)) send(event.type, event);
  };
  // A burst of changes (an edit right after a post) goes out as one walk of the conversation.
  let pending = false;
  const onChange = () => {
    if (pending) return;
    pending = true;
    setImmediate(flush);
  };
  flush();
  state.conversation.events.on('change', onChange);
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  req.on('close', () => {
    clearInterval(keepalive);
    state.conversation.events.off('change', onChange);
  });
}

export async function handleClientAction(
  state: FakeSlackState,
  driver: BotDriver,
  action: string,
  body: Record<string, unknown>,
): Promise<unknown> {
  switch (action) {
    case 'command': {
      const text = typeof body.text === 'string' ? body.text : '';
      const result = await driver.sendSlashCommand({
        userId: requireString(body, 'userId', 'a command'),
        channelId: requireString(body, 'channelId', 'a command'),
        text,
      });
      return { status: result.status, ackMs: result.ackMs };
    }
    case 'click': {
      const result = await driver.clickButton({
        userId: requireString(body, 'userId', 'a click'),
        channelId: requireString(body, 'channelId', 'a click'),
        messageTs: requireString(body, 'messageTs', 'a click'),
        actionId: requireString(body, 'actionId', 'a click'),
        value: typeof body.value === 'string' ? body.value : undefined,
        // The page showed the confirm dialog itself and only sends the click when the user confirmed.
        confirm: true,
      });
      return { status: result.status, ackMs: result.ackMs };
    }
    case 'submit': {
      const values = body.values !== null && typeof body.values === 'object' ? (body.values as Record<string, string | string[]>) : {};
      const result = await driver.submitView({
        userId: requireString(body, 'userId', 'a modal submission'),
        viewId: requireString(body, 'viewId', 'a modal submission'),
        values,
      });
      return { status: result.status, errors: result.errors };
    }
    case 'close': {
      const userId = requireString(body, 'userId', 'closing a modal');
      const modal = state.conversation.modal(requireString(body, 'viewId', 'closing a modal'));
      if (!modal || modal.user !== userId) throw new ClientRequestError(`closing a modal: ${String(body.viewId)} is not a modal of ${userId}`);
      modal.state = 'closed';
      state.conversation.changed();
      return { closed: modal.id };
    }
    default:
      throw new ClientRequestError(`no client action "${action}"; use command, click, submit or close`);
  }
}
