import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleKubeRequest } from './api/handle-kube-request.js';
import type { SimKubeStore } from './kube-store.js';
import { closeWatches } from './api/serve-watch.js';

/**
 * One cluster's simulated apiserver on its own port, mounted at /k8s/<cluster> as the simulator server mounts
 * it. For tests of this package and for poking at a store with kubectl; the simulator itself serves every
 * cluster from one server (src/sim/sim-server.ts).
 */
export interface StandaloneKubeServer {
  /** Base URL of the cluster's API, e.g. http://127.0.0.1:PORT/k8s/test. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startStandaloneKubeServer(opts: { store: SimKubeStore; port?: number; host?: string }): Promise<StandaloneKubeServer> {
  const prefix = `/k8s/${opts.store.clusterName}`;
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url !== prefix && !url.startsWith(`${prefix}/`) && !url.startsWith(`${prefix}?`)) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: `no cluster at ${url}` }));
      return;
    }
    void handleKubeRequest(opts.store, req, res, url.slice(prefix.length) || '/');
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}${prefix}`,
    port,
    close: async () => {
      closeWatches(opts.store);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
