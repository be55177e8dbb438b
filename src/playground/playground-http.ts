import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The page's one origin: its static files (src/playground/web, nothing from the internet), a settings document,
 * and two pass-throughs, so the browser needs no CORS and talks to nothing but this port:
 *
 *   GET  /                    the page (web/index.html)
 *   GET  /<file>              web/<file>
 *   GET  /settings.json       scenario, channel, users and what each may do, clusters
 *   *    /slack/<path>        → the fake Slack's /client/<path> (feed and user actions) and /files/<path>
 *   *    /sim/<path>          → the simulator's control API /_sim/<path>
 */
const WEB_DIR = fileURLToPath(new URL('./web/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// Everything the page loads comes from this server: a CDN reference would be refused by the browser, not fetched.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export interface PlaygroundHttpOptions {
  port: number;
  host?: string;
  slackUrl: string;
  simUrl: string;
  settings: Record<string, unknown>;
}

export interface PlaygroundHttp {
  url: string;
  close(): Promise<void>;
}

function loadAssets(): Map<string, { body: Buffer; type: string }> {
  const assets = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(WEB_DIR)) {
    const type = CONTENT_TYPES[extname(name)];
    if (type) assets.set(`/${name}`, { body: readFileSync(join(WEB_DIR, name)), type });
  }
  return assets;
}

/** Streams the request to `target` and the answer back, so server-sent events pass through as they come. */
function passThrough(req: IncomingMessage, res: ServerResponse, target: URL): void {
  // The body's length goes along: Node sends a DELETE's body neither chunked nor sized unless told its length, and the
  // upstream would read none (DELETE /_sim/workloads/fail carries the workload in its body).
  const length = req.headers['content-length'];
  const headers = { 'content-type': req.headers['content-type'] ?? 'application/json', accept: req.headers.accept ?? '*/*', ...(length ? { 'content-length': length } : {}) };
  const upstream = request(target, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...SECURITY_HEADERS });
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, message: `the playground could not reach ${target.origin}: ${error.message}; restart npm run playground` }));
    } else res.end();
  });
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
}

export async function startPlaygroundHttp(options: PlaygroundHttpOptions): Promise<PlaygroundHttp> {
  const assets = loadAssets();
  const settings = JSON.stringify(options.settings);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://playground.invalid');
    const path = url.pathname;
    if (path.startsWith('/slack/')) {
      const rest = path.slice('/slack/'.length);
      const base = rest.startsWith('files/') ? '/' : '/client/';
      return passThrough(req, res, new URL(`${base}${rest}${url.search}`, options.slackUrl));
    }
    if (path.startsWith('/sim/')) return passThrough(req, res, new URL(`/_sim/${path.slice('/sim/'.length)}${url.search}`, options.simUrl));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET' });
      return void res.end(`${req.method} ${path}: the page's files are read-only; actions go to /slack/… and /sim/…`);
    }
    if (path === '/settings.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', ...SECURITY_HEADERS });
      return void res.end(settings);
    }
    const asset = assets.get(path === '/' ? '/index.html' : path);
    if (!asset) {
      res.writeHead(404, { 'content-type': 'text/plain', ...SECURITY_HEADERS });
      return void res.end(`No file ${path} in the playground; open / for the page.`);
    }
    res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache', ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(
        error.code === 'EADDRINUSE'
          ? `starting the playground page: port ${options.port} is in use; pick another with --port (0 = any free port)`
          : `starting the playground page: ${error.message}`,
        { cause: error },
      )));
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
