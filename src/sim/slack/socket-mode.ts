/**
 * The fake Slack's Socket Mode, written from Slack's own description of the protocol
 * (https://api.slack.com/apis/connections/socket-implement, https://api.slack.com/apis/socket-mode):
 *
 * - `apps.connections.open` takes an app-level token (`xapp-…`; a bot or user token gets `not_allowed_token_type`,
 *   anything else `invalid_auth`) and answers `{ ok: true, url: "wss://…/link/?ticket=…&app_id=…" }`. A URL is a
 *   single-use ticket: every (re)connection asks for a new one.
 * - Once the WebSocket is open Slack sends `{ type: "hello", num_connections, debug_info, connection_info }`.
 * - Every event comes in an envelope `{ envelope_id, type: "slash_commands" | "interactive" | "events_api",
 *   payload, accepts_response_payload, retry_attempt, retry_reason }`; the app acknowledges it within 3 seconds by
 *   sending back `{ envelope_id }`, with `payload` for the answer a slash command or a view submission would give
 *   over HTTP. An envelope left unacked counts as a failed delivery.
 * - Slack refreshes connections: it sends `{ type: "disconnect", reason: "refresh_requested" }` (also "warning",
 *   "link_disabled"), the app opens a new connection and closes the old one; Slack closes it in any case soon after.
 *
 * Here the URL is ws:// on the fake's own port (loopback); the rest is as above.
 */

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { DeliveryResult } from './deliver-to-bot.js';

const PING_INTERVAL_MS = 10_000;

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';
export type DisconnectReason = 'refresh_requested' | 'warning' | 'link_disabled';

export interface SocketModeHub {
  /** The `apps.connections.open` answer for this token (Slack's shape, `ok: false` with its error otherwise). */
  open(token: string | undefined): Record<string, unknown>;
  /** The HTTP server's `upgrade` event: accepts /link/?ticket=… once per ticket, refuses anything else. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Connections that got their `hello` and are still open. */
  readonly openConnections: number;
  /** Every connection ever opened (each refresh adds one). */
  readonly connectionsOpened: number;
  /** Sends an envelope to the newest open connection and waits for its ack (status 200, body = ack payload JSON). */
  send(type: EnvelopeType, payload: Record<string, unknown>): Promise<DeliveryResult>;
  /** `disconnect` on every open connection; each is closed `graceMs` later if the app has not closed it. */
  disconnect(reason?: DisconnectReason, graceMs?: number): void;
  close(): Promise<void>;
}

export interface SocketModeOptions {
  /** ws://127.0.0.1:PORT, known once the fake listens. */
  baseUrl(): string;
  appId: string;
  ackTimeoutMs: number;
  changed(): void;
}

interface Connection {
  id: number;
  socket: WebSocket;
  /** envelope_id → the delivery waiting for its ack. */
  waiting: Map<string, (ack: Record<string, unknown>) => void>;
}

export function createSocketModeHub(options: SocketModeOptions): SocketModeHub {
  const server = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  const connections: Connection[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let opened = 0;

  function open(token: string | undefined): Record<string, unknown> {
    if (!token) return { ok: false, error: 'not_authed' };
    if (/^xox[bpe]-/.test(token)) return { ok: false, error: 'not_allowed_token_type' };
    if (!/^xapp-/.test(token)) return { ok: false, error: 'invalid_auth' };
    const ticket = randomUUID();
    tickets.add(ticket);
    return { ok: true, url: `${options.baseUrl().replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${options.appId}` };
  }

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake-slack');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    server.handleUpgrade(req, socket, head, (ws) => accept(ws));
  }

  function accept(ws: WebSocket): void {
    const connection: Connection = { id: ++opened, socket: ws, waiting: new Map() };
    connections.push(connection);
    ws.on('message', (data) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return; // Slack ignores frames it cannot read.
      }
      const envelopeId = typeof message.envelope_id === 'string' ? message.envelope_id : undefined;
      const waiter = envelopeId ? connection.waiting.get(envelopeId) : undefined;
      if (envelopeId && waiter) {
        connection.waiting.delete(envelopeId);
        waiter(message);
      }
    });
    // Slack pings its sockets; clients give up on a socket that goes 30 s without one (@slack/socket-mode).
    const pinger = setInterval(() => ws.readyState === WebSocket.OPEN && ws.ping(), PING_INTERVAL_MS);
    pinger.unref();
    ws.on('close', () => {
      clearInterval(pinger);
      const index = connections.indexOf(connection);
      if (index >= 0) connections.splice(index, 1);
      options.changed();
    });
    ws.send(JSON.stringify({
      type: 'hello',
      num_connections: connections.length,
      debug_info: { host: 'fake-slack-socket', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: options.appId },
    }));
    options.changed();
  }

  async function send(type: EnvelopeType, payload: Record<string, unknown>): Promise<DeliveryResult> {
    const started = performance.now();
    // The newest connection: after a refresh the app's new socket, while the old one drains.
    const connection = [...connections].reverse().find((c) => c.socket.readyState === WebSocket.OPEN);
    if (!connection) return { status: 0, body: 'dispatch_failed', ackMs: 0 };
    const envelopeId = randomUUID();
    const ack = new Promise<Record<string, unknown> | undefined>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        connection.waiting.delete(envelopeId);
        resolve(undefined);
      }, options.ackTimeoutMs);
      timers.add(timer);
      connection.waiting.set(envelopeId, (message) => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(message);
      });
    });
    connection.socket.send(JSON.stringify({
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
      retry_attempt: 0,
      retry_reason: '',
    }));
    const answer = await ack;
    const ackMs = performance.now() - started;
    if (!answer) return { status: 0, body: 'operation_timeout', ackMs };
    const body = answer.payload === undefined || answer.payload === null ? '' : JSON.stringify(answer.payload);
    return { status: 200, body, ackMs };
  }

  function disconnect(reason: DisconnectReason = 'refresh_requested', graceMs = 10_000): void {
    for (const connection of [...connections]) {
      connection.socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack-socket' } }));
      const timer = setTimeout(() => {
        timers.delete(timer);
        connection.socket.close(1000, reason);
      }, graceMs);
      timer.unref();
      timers.add(timer);
    }
  }

  return {
    open,
    handleUpgrade,
    get openConnections() {
      return connections.filter((c) => c.socket.readyState === WebSocket.OPEN).length;
    },
    get connectionsOpened() {
      return opened;
    },
    send,
    disconnect,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const connection of connections.splice(0)) connection.socket.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * What Slack sends over the socket for a request the fake would POST to the bot: a slash command's form fields as
 * an object (slash_commands), an interaction's `payload` JSON (interactive).
 */
export function envelopeOf(form: string): { type: EnvelopeType; payload: Record<string, unknown> } {
  const fields = new URLSearchParams(form);
  const interaction = fields.get('payload');
  if (interaction !== null) return { type: 'interactive', payload: JSON.parse(interaction) as Record<string, unknown> };
  return { type: 'slash_commands', payload: Object.fromEntries(fields) };
}
