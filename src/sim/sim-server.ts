import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { autoScalingErrorXml, handleAutoScaling } from './aws/autoscaling-service.js';
import { AwsApiError, serverError, throttling } from './aws/aws-error.js';
import { createWorld } from './aws/create-world.js';
import { ec2ErrorXml, handleEc2 } from './aws/ec2-service.js';
import { handleEksRequest, matchEksRoute } from './aws/eks-routes.js';
import { pickFault } from './aws/faults.js';
import { handleSsm } from './aws/ssm-service.js';
import type { SimWorld } from './aws/world-types.js';
import { closeWatches, handleKubeRequest } from './kube/index.js';
import { loadScenario } from './scenario/load-scenario.js';
import { createSimClock, type SimClock } from './sim-clock.js';
import { handleControl } from './sim-control.js';

/**
 * The simulator's one HTTP port: EKS (restJson1 routes), SSM (awsJson1_1, X-Amz-Target), EC2 and Auto Scaling
 * (query protocol, Action=…, told apart by Version), each cluster's Kubernetes API under /k8s/<cluster>, and the control API under /_sim. SigV4 headers
 * are accepted and not checked; the region of a call is read from its credential scope.
 */
export interface StartSimulatorOptions {
  /** Scenario name (src/sim/scenarios/<name>.yaml, or `fleet`), a YAML path, or a scenario object. */
  scenario: string | object;
  port?: number;
  host?: string;
  /** Simulated seconds per real second (default 1); ignored when `clock` is given. */
  speed?: number;
  clock?: SimClock;
  /** Cluster count for the `fleet` scenario. */
  clusters?: number;
  /**
   * The URL clients reach the simulator at, when it differs from where it listens (e.g. http://sim:4566 inside
   * docker-compose); DescribeCluster endpoints and the kubeconfig use it.
   */
  publicUrl?: string;
  /** Controller log lines (node group phases, Fargate, Karpenter), also kept for GET /_sim/log. */
  log?: (line: Record<string, unknown>) => void;
}

export interface SimServer {
  url: string;
  port: number;
  clock: SimClock;
  world: SimWorld;
  /** kubeconfig YAML: one context per cluster, server `${url}/k8s/<cluster>`, token "sim". */
  kubeconfig(): string;
  close(): Promise<void>;
}

const MUTATING = new Set(['UpdateClusterVersion', 'CreateNodegroup', 'DeleteNodegroup', 'UpdateNodegroupVersion', 'UpdateNodegroupConfig', 'UpdateAddon', 'StartInsightsRefresh']);
const LOG_LIMIT = 5000;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The region in a SigV4 Authorization header's credential scope (…/20250101/us-west-2/eks/aws4_request). */
function regionOf(req: IncomingMessage): string | undefined {
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
}

export async function startSimulator(opts: StartSimulatorOptions): Promise<SimServer> {
  const scenario = loadScenario(opts.scenario, { clusters: opts.clusters });
  const clock = opts.clock ?? createSimClock(opts.speed ?? 1);
  const logLines: Array<Record<string, unknown>> = [];
  const world = await createWorld(scenario, {
    clock,
    log: (line) => {
      const entry = { time: new Date(clock.now()).toISOString(), ...line };
      logLines.push(entry);
      if (logLines.length > LOG_LIMIT) logLines.splice(0, logLines.length - LOG_LIMIT);
      opts.log?.(entry);
    },
  });
  let requestCounter = 0;
  const requestId = () => `${(++requestCounter).toString(16).padStart(8, '0')}-5e1a-4c0d-9b1e-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;

  const handleAws = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const raw = await readBody(req);
    const target = req.headers['x-amz-target'];
    const contentType = String(req.headers['content-type'] ?? '');
    const isQuery = !target && contentType.includes('x-www-form-urlencoded') && /(^|&)Action=/.test(raw);
    // EC2 and Auto Scaling share the query protocol; the API version in each request tells them apart.
    const isAutoScaling = isQuery && /(^|&)Version=2011-01-01(&|$)/.test(raw);
    const isEc2 = isQuery && !isAutoScaling;
    const id = requestId();
    if (world.faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, world.faults.latencyMs));
    const region = regionOf(req);
    try {
      const fault = pickFault(world.faults, Math.random);
      if (fault?.kind === 'throttle') throw isEc2 ? new AwsApiError(503, 'RequestLimitExceeded', 'Request limit exceeded.') : isAutoScaling ? new AwsApiError(400, 'Throttling', 'Rate exceeded') : throttling();
      if (fault?.kind === 'error') throw serverError(fault.status);

      if (typeof target === 'string') {
        const body = raw ? JSON.parse(raw) : {};
        return sendJson(res, 200, handleSsm(target, body, region ?? 'us-west-2', world.ssmParameters), { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': id });
      }
      if (isAutoScaling) {
        const form = new URLSearchParams(raw);
        try {
          const result = handleAutoScaling(world, form, id);
          if (result.mutation) world.record({ service: 'autoscaling', ...result.mutation });
          res.writeHead(200, { 'Content-Type': 'text/xml;charset=UTF-8', 'x-amzn-RequestId': id });
          return void res.end(result.xml);
        } catch (error) {
          const operation = form.get('Action') ?? '';
          if (error instanceof AwsApiError && !/^Describe/.test(operation)) world.record({ service: 'autoscaling', operation, target: form.get('AutoScalingGroupName') ?? form.get('InstanceId') ?? undefined, error: error.type });
          throw error;
        }
      }
      if (isEc2) {
        const result = handleEc2(world, new URLSearchParams(raw), region, id);
        if (result.mutation) world.record({ service: 'ec2', ...result.mutation });
        res.writeHead(200, { 'Content-Type': 'text/xml;charset=UTF-8' });
        return void res.end(result.xml);
      }
      const method = req.method ?? 'GET';
      const operation = matchEksRoute(method, url.pathname)?.route.operation;
      let body: Record<string, any> = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        throw new AwsApiError(400, 'InvalidRequestException', 'The request body is not valid JSON.');
      }
      try {
        const result = handleEksRequest(world, { method, path: url.pathname, query: url.searchParams, body });
        if (result.mutation) world.record({ service: 'eks', ...result.mutation });
        return sendJson(res, result.status, result.body, { 'x-amzn-RequestId': id });
      } catch (error) {
        if (operation && MUTATING.has(operation) && error instanceof AwsApiError) {
          const cluster = decodeURIComponent(url.pathname.split('/')[2] ?? '');
          world.record({ service: 'eks', operation, cluster, error: error.type });
        }
        throw error;
      }
    } catch (error) {
      const awsError = error instanceof AwsApiError ? error : new AwsApiError(500, isEc2 || isAutoScaling ? 'InternalFailure' : 'ServerException', `Simulator error: ${(error as Error).message}`);
      if (!(error instanceof AwsApiError)) opts.log?.({ level: 'error', message: 'simulator AWS handler failed', error: String((error as Error).stack ?? error) });
      if (isAutoScaling) {
        res.writeHead(awsError.status, { 'Content-Type': 'text/xml;charset=UTF-8', 'x-amzn-RequestId': id });
        return void res.end(autoScalingErrorXml(awsError, id));
      }
      if (isEc2) {
        res.writeHead(awsError.status, { 'Content-Type': 'text/xml;charset=UTF-8' });
        return void res.end(ec2ErrorXml(awsError, id));
      }
      if (typeof target === 'string') {
        return sendJson(res, awsError.status, { __type: awsError.type, message: awsError.message }, { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': id });
      }
      return sendJson(res, awsError.status, { message: awsError.message, ...awsError.fields }, { 'x-amzn-errortype': awsError.type, 'x-amzn-RequestId': id });
    }
  };

  const handleKube = async (req: IncomingMessage, res: ServerResponse, rawUrl: string): Promise<void> => {
    const rest = rawUrl.slice('/k8s/'.length);
    const slash = rest.search(/[/?]/);
    const name = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
    const path = slash < 0 ? '/' : rest.slice(slash);
    const cluster = world.cluster(name);
    if (!cluster) {
      return sendJson(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `no simulated cluster named "${name}"`, reason: 'NotFound', code: 404 });
    }
    // An unreachable API server: the connection drops, as when its endpoint is firewalled off.
    if (cluster.unreachable) return void req.socket.destroy();
    await handleKubeRequest(cluster.store, req, res, path.startsWith('/') ? path : `/${path}`);
  };

  const server = createServer((req, res) => {
    const rawUrl = req.url ?? '/';
    const url = new URL(rawUrl, 'http://sim.invalid');
    const work = async () => {
      if (url.pathname.startsWith('/k8s/')) return handleKube(req, res, rawUrl);
      if (url.pathname === '/_sim' || url.pathname.startsWith('/_sim/')) {
        const raw = await readBody(req);
        let body: Record<string, any> = {};
        try {
          body = raw ? JSON.parse(raw) : {};
        } catch {
          return sendJson(res, 400, { message: 'The control request body is not valid JSON.' });
        }
        const result = await handleControl(world, req.method ?? 'GET', url, body, logLines);
        return sendJson(res, result.status, result.body);
      }
      return handleAws(req, res, url);
    };
    work().catch((error: Error) => {
      opts.log?.({ level: 'error', message: 'simulator request failed', url: rawUrl, error: String(error.stack ?? error) });
      if (!res.headersSent) sendJson(res, 500, { message: `Simulator error: ${error.message}` });
      else res.end();
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    world.stop();
    throw new Error(
      error.code === 'EADDRINUSE'
        ? `starting the simulator: port ${opts.port} is already in use; pick another with --port or use 0 for any free port`
        : `starting the simulator: ${error.message}`,
      { cause: error },
    );
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1';
  const url = opts.publicUrl?.replace(/\/+$/, '') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  world.baseUrl = url;

  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    clock,
    world,
    kubeconfig: () => renderKubeconfig(url, [...world.clusters.keys()]),
    close() {
      closed ??= (async () => {
        world.stop();
        try {
          for (const cluster of world.clusters.values()) closeWatches(cluster.store);
        } catch {
          // Watches end with their sockets below anyway.
        }
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const socket of sockets) socket.destroy();
        });
      })();
      return closed;
    },
  };
}

export function renderKubeconfig(url: string, clusters: string[]): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: clusters.map((name) => ({ name, cluster: { server: `${url}/k8s/${name}` } })),
    users: [{ name: 'sim', user: { token: 'sim' } }],
    contexts: clusters.map((name) => ({ name, context: { cluster: name, user: 'sim' } })),
    'current-context': clusters[0] ?? '',
  });
}
