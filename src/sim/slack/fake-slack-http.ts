import type { IncomingMessage, ServerResponse } from 'node:http';
import type { createBotDriver } from './bot-driver.js';
import { chatMethods } from './web-api/chat-methods.js';
import { conversationsMethods } from './web-api/conversations-methods.js';
import { directoryMethods } from './web-api/directory-methods.js';
import type { FaultSpec } from './fault-injection.js';
import { recordCall, type FakeSlackState } from './fake-slack-state.js';
import { filesMethods, receiveUpload } from './web-api/files-methods.js';
import { parseSlackApiBody, parseUploadBody, SlackBodyError, type SlackArgs } from './parse-slack-body.js';
import { applyResponseMessage } from './web-api/response-messages.js';
import { ClientRequestError, handleClientAction, serveFeed } from './user-client-http.js';
import { viewsMethods } from './web-api/views-methods.js';
import type { WebApiHandler } from './web-api/web-api-context.js';
import { checkTokenAccess } from './web-api/token-scopes.js';

const METHODS: Record<string, WebApiHandler> = {
  ...chatMethods,
  ...conversationsMethods,
  ...viewsMethods,
  ...filesMethods,
  ...directoryMethods,
};

/**
 * The fake's HTTP surface: the Web API under /api/<method>, response_urls under /response/<id>, upload URLs under
 * /upload/<file id> and file downloads under /files/<file id>/<name>. Slack answers Web API calls with HTTP 200 and
 * `ok: false` for errors; only rate limits (429) and outages (5xx) change the status. Under /client/ a browser plays
 * the Slack app's user side (see user-client-http.ts).
 */
export function createFakeSlackRequestHandler(state: FakeSlackState, driver: ReturnType<typeof createBotDriver>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    handle(state, driver, req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `fake Slack failed: ${String(error)}`);
    });
  };
}

async function handle(
  state: FakeSlackState,
  driver: ReturnType<typeof createBotDriver>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake-slack');
  const [, area, id] = url.pathname.split('/');
  if (area === 'client' && id === 'feed' && req.method === 'GET') return serveFeed(state, req, res);
  const raw = await readBody(req);
  if (area === 'client' && id && req.method === 'POST') return handleClient(state, driver, id, raw, res);
  if (area === 'api' && id) return handleApi(state, id, req, url, raw, res);
  if (area === 'response' && id && req.method === 'POST') return handleResponseUrl(state, id, req, raw, res);
  if (area === 'upload' && id && req.method === 'POST') return handleUpload(state, id, req, raw, res);
  if (area === 'files' && id && req.method === 'GET') {
    const file = state.conversation.file(id);
    if (!file?.content) return send(res, 404, 'text/plain', 'file_not_found');
    return send(res, 200, 'application/octet-stream', file.content);
  }
  send(res, 404, 'text/plain', 'not_found');
}

async function handleClient(
  state: FakeSlackState,
  driver: ReturnType<typeof createBotDriver>,
  action: string,
  raw: Buffer,
  res: ServerResponse,
): Promise<void> {
  try {
    const body: unknown = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ClientRequestError('the request body must be a JSON object');
    sendJson(res, 200, { ok: true, ...(await handleClientAction(state, driver, action, body as Record<string, unknown>) as object) });
  } catch (error) {
    // The driver's own errors (no such button, a required input left empty) are sentences meant for the user too.
    const message = error instanceof SyntaxError ? 'the request body is not valid JSON' : (error as Error).message;
    sendJson(res, 400, { ok: false, message });
  }
}

async function handleApi(
  state: FakeSlackState,
  method: string,
  req: IncomingMessage,
  url: URL,
  raw: Buffer,
  res: ServerResponse,
): Promise<void> {
  let args: SlackArgs;
  try {
    args = await parseSlackApiBody(req.headers['content-type'], raw);
    for (const [key, value] of url.searchParams) args[key] ??= value;
  } catch (error) {
    const code = error instanceof SlackBodyError ? error.code : 'invalid_form_data';
    recordCall(state, { method, body: {}, status: 200, ok: false, error: code });
    return sendJson(res, 200, { ok: false, error: code });
  }
  const fault = state.faults.take(method);
  const handler = METHODS[method];
  // apps.connections.open takes the app-level token (xapp-…), every other method a bot or user token.
  const socketOpen = method === 'apps.connections.open';
  const authError = socketOpen ? undefined : checkToken(req.headers.authorization, args.token);
  const access = checkTokenAccess(state.ctx.workspace.access, state.ctx.workspace.botUserId, method, args);
  const answer = () => {
    if (socketOpen) return state.socketMode.open(bearerOf(req.headers.authorization, args.token));
    return authError ? { ok: false, error: authError } : !handler ? { ok: false, error: 'unknown_method' } : access.error ?? handler(args, state.ctx);
  };

  if (fault) {
    if ('applyFirst' in fault && fault.applyFirst) answer();
    recordCall(state, { method, body: args, status: faultStatus(fault), ok: false, error: faultError(fault) });
    return sendFault(res, fault);
  }
  const limited = state.rateLimits.take(method, args);
  if (limited) {
    recordCall(state, { method, body: args, status: 429, ok: false, error: 'ratelimited' });
    return sendFault(res, { status: 429, retryAfter: limited.retryAfter });
  }
  const warningsBefore = state.warnings.length;
  const result = answer();
  const ok = result.ok === true;
  const warnings = state.warnings.slice(warningsBefore);
  recordCall(state, { method, body: args, status: 200, ok, error: ok ? undefined : String(result.error), warnings });
  sendJson(res, 200, result, authError ? {} : access.headers);
}

/** Slack wants a token on every method: `not_authed` without one, `invalid_auth` for something not a bot/user token. */
function checkToken(authorization: string | undefined, bodyToken: unknown): string | undefined {
  const token = bearerOf(authorization, bodyToken);
  if (!token) return 'not_authed';
  if (!/^xox[bp]-/.test(token)) return 'invalid_auth';
  return undefined;
}

function bearerOf(authorization: string | undefined, bodyToken: unknown): string | undefined {
  return authorization?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? (typeof bodyToken === 'string' ? bodyToken : undefined);
}

async function handleResponseUrl(
  state: FakeSlackState,
  id: string,
  req: IncomingMessage,
  raw: Buffer,
  res: ServerResponse,
): Promise<void> {
  let payload: SlackArgs;
  try {
    payload = await parseSlackApiBody(req.headers['content-type'] ?? 'application/json', raw);
  } catch {
    recordCall(state, { method: 'response_url', body: {}, status: 400, ok: false, error: 'invalid_payload' });
    return send(res, 400, 'text/plain', 'invalid_payload');
  }
  const fault = state.faults.take('response_url');
  if (fault) {
    recordCall(state, { method: 'response_url', body: payload, status: faultStatus(fault), ok: false, error: faultError(fault) });
    return sendFault(res, fault);
  }
  const use = state.tokens.useResponseUrl(id);
  if (!use.ok) {
    recordCall(state, { method: 'response_url', body: payload, status: 404, ok: false, error: use.error });
    return send(res, 404, 'text/plain', use.error);
  }
  const outcome = applyResponseMessage(state.ctx, use.state, payload, 'response_url');
  const ok = outcome.status === 200;
  recordCall(state, { method: 'response_url', body: payload, status: outcome.status, ok, error: ok ? undefined : outcome.body });
  if (ok) return sendJson(res, 200, { ok: true });
  send(res, outcome.status, 'text/plain', outcome.body);
}

async function handleUpload(
  state: FakeSlackState,
  fileId: string,
  req: IncomingMessage,
  raw: Buffer,
  res: ServerResponse,
): Promise<void> {
  const fault = state.faults.take('files.upload');
  const body = { file_id: fileId, bytes: raw.length };
  if (fault) {
    recordCall(state, { method: 'files.upload', body, status: faultStatus(fault), ok: false, error: faultError(fault) });
    return sendFault(res, fault);
  }
  const upload = await parseUploadBody(req.headers['content-type'], raw);
  const stored = receiveUpload(state.ctx, fileId, upload.content);
  recordCall(state, { method: 'files.upload', body, status: stored ? 200 : 404, ok: stored, error: stored ? undefined : 'file_not_found' });
  if (!stored) return send(res, 404, 'text/plain', 'file_not_found');
  send(res, 200, 'text/plain', `OK - ${upload.content.length}`);
}

/** The HTTP status recorded for a fault; 0 when the connection dropped without an answer. */
function faultStatus(fault: FaultSpec): number {
  if ('disconnect' in fault) return 0;
  return 'status' in fault ? fault.status : 200;
}

function faultError(fault: FaultSpec): string {
  if ('error' in fault) return fault.error;
  if ('disconnect' in fault) return 'disconnected';
  return fault.status === 429 ? 'ratelimited' : `http_${fault.status}`;
}

function sendFault(res: ServerResponse, fault: FaultSpec): void {
  if ('disconnect' in fault) {
    res.socket?.destroy();
    return;
  }
  if ('error' in fault) return sendJson(res, 200, { ok: false, error: fault.error });
  if (fault.status === 429) {
    res.setHeader('Retry-After', String(fault.retryAfter ?? 1));
    return sendJson(res, 429, { ok: false, error: 'ratelimited' });
  }
  send(res, fault.status, 'text/html', '<html><body>Slack is having trouble</body></html>');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, ...headers });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
