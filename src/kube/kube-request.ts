/**
 * Plain-JSON requests with what client-node's own transport sets up: the Configuration that `kc.makeApiClient` builds
 * (server URL, TLS agent with the cluster CA, our bearer-token authenticator), sent on node's http(s) (see `send`). We do not use the typed
 * CoreV1Api/AppsV1Api classes because their deserializer turns objects into model classes — timestamps become
 * Date objects and fields the model does not know are dropped — while the KubePort contract is the JSON the
 * apiserver sent. Failures are client-node's ApiException (code, raw Status body), as from the typed APIs.
 */

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createGunzip, createInflate } from 'node:zlib';
import { ApiException, HttpMethod, type Configuration, type KubeConfig } from '@kubernetes/client-node';

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
}

export type KubeRequester = <T>(request: KubeRequest) => Promise<T>;

/** Class only because `kc.makeApiClient(type)` instantiates a constructor with the Configuration it built. */
class PlainJsonApi {
  constructor(readonly configuration: Configuration) {}
}

/** Sockets kept open per cluster: the reads of one cluster at once (a status, a snapshot's lists, a drain's evictions). */
export const KUBE_MAX_SOCKETS = 32;

/**
 * client-node builds a new Agent (without keep-alive) for every request, so each request would open its own TCP and
 * TLS connection. The first agent's options (CA, TLS verification, server name) are the cluster's; keep one
 * keep-alive agent with them per requester, i.e. per cluster. Proxy agents are left as client-node made them.
 */
function keepAliveAgentFor(made: unknown, kept: { agent?: HttpAgent }): unknown {
  if (kept.agent) return kept.agent;
  if (!(made instanceof HttpAgent) || (made.constructor !== HttpAgent && made.constructor !== HttpsAgent)) return made;
  const options = (made as HttpAgent & { options?: object }).options ?? {};
  const Kind = made.constructor as typeof HttpAgent;
  kept.agent = new Kind({ ...options, keepAlive: true, maxSockets: KUBE_MAX_SOCKETS });
  return kept.agent;
}

export function createKubeRequester(kc: KubeConfig): KubeRequester {
  const { configuration } = kc.makeApiClient(PlainJsonApi);
  const kept: { agent?: HttpAgent } = {};
  return async <T>(request: KubeRequest): Promise<T> => {
    const context = configuration.baseServer.makeRequestContext(request.path, HttpMethod[request.method]);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) context.setQueryParam(key, String(value));
    }
    context.setHeaderParam('Accept', 'application/json');
    if (request.body !== undefined) {
      context.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
      context.setBody(JSON.stringify(request.body));
    }
    // Sets a TLS agent (replaced by the cluster's keep-alive one) and asks our authenticator for the current bearer token, on every request.
    await configuration.authMethods.default?.applySecurityAuthentication(context);
    const agent = keepAliveAgentFor(context.getAgent(), kept);
    if (agent) context.setAgent(agent as HttpAgent);
    const response = await send(context.getUrl(), { method: request.method, headers: context.getHeaders(), body: context.getBody() as string | undefined, agent: agent as HttpAgent | undefined });
    const { status, text } = response;
    if (status < 200 || status > 299) throw new ApiException(status, `HTTP ${status}`, text, response.headers);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new Error(`the apiserver answered ${request.method} ${request.path} with a body that is not JSON`, { cause: error });
    }
  };
}

/**
 * One HTTP exchange on node's http(s) with the cluster's agent, as client-node's own fetch (node-fetch) would send it
 * (the same URL, headers and body; gzip or deflate accepted and undone), without fetch's Request/Response/Headers
 * objects and stream wrappers around every answer: bench P2k, 2,000 requests of `status --all`, where node-fetch
 * and its streams were a tenth of the Kubernetes side's CPU. No redirects: the apiserver answers where it is asked.
 */
function send(url: string, init: { method: string; headers: Record<string, string>; body?: string; agent?: HttpAgent }): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method, headers: { ...init.headers, 'Accept-Encoding': 'gzip, deflate' }, agent: init.agent }, (res) => {
      const chunks: Buffer[] = [];
      const decoded = decode(res);
      decoded.on('data', (chunk: Buffer) => chunks.push(chunk));
      decoded.on('error', reject);
      decoded.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

function decode(res: IncomingMessage): NodeJS.ReadableStream {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip') return res.pipe(createGunzip());
  if (encoding === 'deflate') return res.pipe(createInflate());
  return res;
}
