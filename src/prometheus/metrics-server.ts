import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.js';
import type { MetricsExposition } from '../ports/metrics.js';

/**
 * GET /healthz and GET /metrics for a process that serves no Slack traffic (ROLE=worker), so its pods have a
 * liveness/readiness probe and Prometheus can scrape its step, gate, outbox and API-call series like the web pods'.
 */
export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(opts: { port: number; host?: string; metrics: MetricsExposition; logger: Logger; role: string }): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      const body = JSON.stringify({ ok: true, role: opts.role });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      return void res.end(body);
    }
    if (req.method === 'GET' && path === '/metrics') {
      opts.metrics.render().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
          res.end(body);
        },
        (error: unknown) => {
          opts.logger.warn({ err: error }, 'rendering /metrics failed');
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('rendering the metrics failed; see the bot log\n');
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end(`This ${opts.role} process serves only GET /healthz and GET /metrics.\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === 'EADDRINUSE' ? `serving /healthz and /metrics: port ${opts.port} is already in use; set PORT to a free one` : `serving /healthz and /metrics: ${error.message}`,
      { cause: error },
    );
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
