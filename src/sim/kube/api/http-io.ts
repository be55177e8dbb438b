import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeStatus } from './kube-status.js';

/** JSON in and out of the simulated apiserver; every answer is application/json, as client-node requires. */
export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendStatus(res: ServerResponse, status: KubeStatus): void {
  const retry = status.details?.retryAfterSeconds;
  sendJson(res, status.code, status, typeof retry === 'number' && retry > 0 ? { 'Retry-After': String(retry) } : {});
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
