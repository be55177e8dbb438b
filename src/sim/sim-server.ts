import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stringify as toYaml } from 'yaml';
import { autoScalingErrorXml, handleAutoScaling } from './aws/ec2/autoscaling-service.js';
import { AwsApiError, injectedServerError, injectedThrottle } from './aws/aws-error.js';
import { createWorld } from './aws/create-world.js';
import { ec2ErrorXml, handleEc2 } from './aws/ec2/ec2-service.js';
import { handleEksRequest, matchEksRoute } from './aws/eks/eks-routes.js';
import { applyFaults, pickFault, takeDroppedAnswer } from './aws/faults.js';
import type { ScenarioFaults } from './scenario/scenario-schema.js';
import { handleSsm } from './aws/ssm-service.js';
import { CLOUDWATCH_TARGET_PREFIX, handleCloudWatch } from './aws/cloudwatch-service.js';
import { cloudWatchErrorHeaders } from './aws/cloudwatch-errors.js';
import type { SimWorld } from './aws/world-types.js';
import { closeWatches, handleKubeRequest } from './kube/index.js';
import { loadScenario } from './scenario/load-scenario.js';
import { createSimClock, type SimClock } from './sim-clock.js';
import { handleControl } from './sim-control.js';
import { accessKeyOf, createCallerIdentities, signedServiceOf, type CallerIdentity } from './iam/caller-identities.js';
import { authorizeAwsCall, type AwsService } from './iam/aws-request-authorization.js';
import { parsePolicyDocument } from './iam/policy-document.js';
import { handleIam, iamErrorXml } from './iam/iam-service.js';
import { refuseDryRun } from './aws/ec2/ec2-dry-run.js';
import { handleSts, STS_ACTIONS, stsErrorXml, UNSIGNED_STS_ACTIONS } from './iam/sts-service.js';
import { createKubeAccess, type KubeAccessOptions } from './kube/api/kube-access.js';
import { parseTrustPolicies, type TrustPolicy } from './iam/trust-policy.js';
import { createRequestCounter, type RequestCounter } from './request-counts.js';
import { listDisruptions, parseSince, type KubeWrite } from './bot-disruptions.js';
import { resolveStrictness, type StrictnessOptions } from './strictness.js';

/**
 * The simulator's one HTTP port: EKS (restJson1 routes), SSM (awsJson1_1, X-Amz-Target), CloudWatch (awsJson1_0,
 * X-Amz-Target GraniteServiceVersion20100801.*), EC2 and Auto Scaling
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
  /**
   * Real time in which this process's event loop was held up beyond this many milliseconds does not count as
   * simulated time (SimClockOptions.loopGapMs; a twin's value is TWIN_LOOP_GAP_MS). Unset: all real time counts.
   * Ignored when `clock` is given.
   */
  loopGapMs?: number;
  clock?: SimClock;
  /** Cluster count for the `fleet` scenario. */
  clusters?: number;
  /** For the `fleet` scenario: every cluster healthy at this version (see fleet-scenario.ts). */
  fleetVersion?: string;
  /** For the `scale` scenario: Karpenter nodes, NodePools, managed-node-group nodes (see scale-scenario.ts). */
  nodes?: number;
  pools?: number;
  mngNodes?: number;
  /**
   * The URL clients reach the simulator at, when it differs from where it listens (e.g. http://sim:4566 inside
   * docker-compose); DescribeCluster endpoints and the kubeconfig use it.
   */
  publicUrl?: string;
  /**
   * An IAM identity policy (JSON document, e.g. deploy/iam/permissions-policy.json) every signed AWS caller is held to: a call
   * it does not allow answers as the service does (AccessDeniedException, UnauthorizedOperation, AccessDenied).
   * Unset: every call is allowed, as before.
   */
  iamPolicy?: object;
  /**
   * Trust policies by role ARN (AssumeRole / AssumeRoleWithWebIdentity are refused with AccessDenied unless the
   * role's trust policy allows the caller). A role not listed trusts the simulated account's own identities.
   */
  trustPolicies?: Record<string, object> | ReadonlyMap<string, TrustPolicy>;
  /**
   * Static access keys (id → secret) whose signatures the simulator can check, e.g. an EKS token signed for another
   * cluster (default: the test credentials, AKIDSIMULATOR/simulator and test/test). Other static keys are accepted
   * unchecked, as the simulator cannot know their secrets.
   */
  staticKeys?: Readonly<Record<string, string>>;
  /**
   * Kubernetes RBAC for the identities in EKS tokens (the bot's): the ClusterRole(s) and ClusterRoleBinding(s) of
   * e.g. deploy/kubernetes/rbac/cluster-role.yaml. Unset: every request is allowed, as before.
   */
  rbac?: KubeAccessOptions;
  /** Controller log lines (node group phases, Fargate, Karpenter), also kept for GET /_sim/log. */
  log?: (line: Record<string, unknown>) => void;
  /** Faults on top of the scenario's own (`npm run sim -- --throttle-rate …`). */
  faults?: ScenarioFaults;
  /**
   * Every rule of the real services is enforced unless relaxed by name here (`npm run sim -- --relax …`); a caller
   * that relaxes one says why in a comment. Also the shorter token lifetime and resourceVersion window of tests.
   */
  strictness?: StrictnessOptions;
}

export interface SimServer {
  url: string;
  port: number;
  clock: SimClock;
  world: SimWorld;
  /** kubeconfig YAML: one context per cluster, server `${url}/k8s/<cluster>`, token "sim". */
  kubeconfig(): string;
  /** Kubernetes writes the simulated apiservers accepted or refused (access reviews excluded), in order, at simulated `at`. */
  kubeWrites: KubeWrite[];
  /** Requests answered so far, by AWS operation and by Kubernetes verb and resource (also GET /_sim/requests). */
  requests: RequestCounter;
  close(): Promise<void>;
}

const MUTATING = new Set(['UpdateClusterVersion', 'CancelUpdate', 'CreateNodegroup', 'DeleteNodegroup', 'UpdateNodegroupVersion', 'UpdateNodegroupConfig', 'UpdateAddon', 'StartInsightsRefresh']);
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

/** The API version each query-protocol service's requests carry: AWS tells them apart by host, the simulator by this. */
const QUERY_API_VERSIONS: Record<string, AwsService> = { '2011-06-15': 'sts', '2010-05-08': 'iam', '2011-01-01': 'autoscaling', '2016-11-15': 'ec2' };

/**
 * Which AWS service a request is for, as AWS knows it from the host it was sent to: SSM and CloudWatch by their
 * X-Amz-Target, the query protocols (EC2, STS, IAM, Auto Scaling) by their API version, else by the service of the
 * SigV4 credential scope (unsigned web-identity calls by their Action), everything else is EKS.
 */
function serviceOf(req: IncomingMessage, target: unknown, form: URLSearchParams | undefined): AwsService {
  if (typeof target === 'string') return target.startsWith(CLOUDWATCH_TARGET_PREFIX) ? 'monitoring' : 'ssm';
  const action = form?.get('Action');
  if (!action) return 'eks';
  const byVersion = QUERY_API_VERSIONS[form?.get('Version') ?? ''];
  if (byVersion) return byVersion;
  const signed = signedServiceOf(req.headers.authorization);
  if (signed === 'sts' || signed === 'autoscaling' || signed === 'iam') return signed;
  if (!signed && UNSIGNED_STS_ACTIONS.has(action)) return 'sts';
  if (!signed && STS_ACTIONS.has(action)) return 'sts';
  return 'ec2';
}

/** The operation a request asks for, as the request counter keys it (SSM by target, query protocols by Action). */
function awsOperationOf(service: AwsService, target: unknown, form: URLSearchParams | undefined, method: string, pathname: string): string {
  if (service === 'ssm' || service === 'monitoring') return String(target).split('.').pop() ?? '';
  if (form?.get('Action')) return form.get('Action')!;
  return matchEksRoute(method, pathname)?.route.operation ?? `${method} ${pathname}`;
}

/** The cluster an EKS REST path names (/clusters/<name>/…), for per-cluster request counts. */
function eksClusterOf(pathname: string): string | undefined {
  const match = /^\/clusters\/([^/]+)/.exec(pathname);
  return match ? decodeURIComponent(match[1]) : undefined;
}

function invalidToken(service: AwsService): AwsApiError {
  const message = 'The security token included in the request is invalid.';
  if (service === 'ec2') return new AwsApiError(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials');
  if (service === 'sts' || service === 'autoscaling' || service === 'iam' || service === 'monitoring') return new AwsApiError(403, 'InvalidClientTokenId', message);
  return new AwsApiError(403, 'UnrecognizedClientException', message);
}

/**
 * A signature whose credential scope names another service: 403 SignatureDoesNotMatch from the query services,
 * InvalidSignatureException from the JSON ones, with the message AWS gives (trailing space included).
 */
function wrongServiceScope(service: AwsService, isQuery: boolean): AwsApiError {
  return new AwsApiError(403, isQuery ? 'SignatureDoesNotMatch' : 'InvalidSignatureException', `Credential should be scoped to correct service: '${service}'. `);
}

/** The region in a SigV4 Authorization header's credential scope (…/20250101/us-west-2/eks/aws4_request). */
function regionOf(req: IncomingMessage): string | undefined {
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
}

export async function startSimulator(opts: StartSimulatorOptions): Promise<SimServer> {
  const scenario = loadScenario(opts.scenario, { clusters: opts.clusters, fleetVersion: opts.fleetVersion, nodes: opts.nodes, pools: opts.pools, mngNodes: opts.mngNodes });
  const clock = opts.clock ?? createSimClock(opts.speed ?? 1, Date.now(), { loopGapMs: opts.loopGapMs });
  const logLines: Array<Record<string, unknown>> = [];
  const strictness = resolveStrictness(opts.strictness);
  const world = await createWorld(scenario, {
    clock,
    strictness,
    log: (line) => {
      const entry = { time: new Date(clock.now()).toISOString(), ...line };
      logLines.push(entry);
      if (logLines.length > LOG_LIMIT) logLines.splice(0, logLines.length - LOG_LIMIT);
      opts.log?.(entry);
    },
  });
  if (opts.faults) applyFaults(world.faults, opts.faults);
  const identities = createCallerIdentities({ accountId: world.accountId, now: () => clock.now(), staticKeys: opts.staticKeys });
  const iamPolicy = opts.iamPolicy ? parsePolicyDocument(opts.iamPolicy, 'iamPolicy') : undefined;
  const kubeAccess = createKubeAccess(identities, opts.rbac, strictness);
  const trustPolicies =
    opts.trustPolicies instanceof Map ? (opts.trustPolicies as ReadonlyMap<string, TrustPolicy>) : opts.trustPolicies ? parseTrustPolicies(opts.trustPolicies, 'trustPolicies') : undefined;
  /** The signer of a request (Authorization header, or a presigned query), undefined when unsigned. */
  const callerOf = (req: IncomingMessage, form: URLSearchParams | undefined): CallerIdentity | undefined => {
    const key = accessKeyOf(String(req.headers.authorization ?? '')) ?? accessKeyOf(form?.get('X-Amz-Credential'));
    return key ? identities.identityOf(key) : undefined;
  };
  let requestCounter = 0;
  const requests = createRequestCounter();
  const requestId = () => `${(++requestCounter).toString(16).padStart(8, '0')}-5e1a-4c0d-9b1e-${Date.now().toString(16).padStart(12, '0').slice(-12)}`;

  const handleAws = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const raw = await readBody(req);
    const target = req.headers['x-amz-target'];
    const contentType = String(req.headers['content-type'] ?? '');
    const form = contentType.includes('x-www-form-urlencoded') ? new URLSearchParams(raw) : undefined;
    const service = serviceOf(req, target, form);
    const isQuery = service === 'ec2' || service === 'sts' || service === 'autoscaling' || service === 'iam';
    const id = requestId();
    requests.aws(service, awsOperationOf(service, target, form, req.method ?? 'GET', url.pathname), eksClusterOf(url.pathname));
    if (world.faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, world.faults.latencyMs));
    const region = regionOf(req);
    const caller = callerOf(req, form);
    const method = req.method ?? 'GET';
    // The action is done; its answer is lost on the way (fault dropAnswers): the connection closes unanswered.
    const dropped = (operation: string) => {
      if (!takeDroppedAnswer(world.faults, operation)) return false;
      req.socket.destroy();
      return true;
    };
    try {
      const fault = pickFault(world.faults, Math.random, service);
      if (fault?.kind === 'throttle') {
        throw injectedThrottle(service);
      }
      if (fault?.kind === 'error') throw injectedServerError(service, fault.status);

      let body: Record<string, any> = {};
      if (!isQuery) {
        try {
          body = raw ? JSON.parse(raw) : {};
        } catch {
          throw new AwsApiError(400, service === 'ssm' || service === 'monitoring' ? 'SerializationException' : 'InvalidRequestException', 'The request body is not valid JSON.');
        }
      }
      const operation =
        service === 'ssm' || service === 'monitoring' ? String(target).split('.').pop() ?? ''
        : isQuery ? form?.get('Action') ?? ''
        : matchEksRoute(method, url.pathname)?.route.operation ?? '';
      // A session key the simulator never issued (or that expired): what each service says of a bad token.
      const key = accessKeyOf(String(req.headers.authorization ?? ''));
      if (key && identities.isUnknownSessionKey(key)) throw invalidToken(service);
      // A signature scoped to another service is refused before anything else is read (IAM user guide, "Troubleshoot
      // signed requests for AWS APIs", credential scope errors: "Credential should be scoped to correct service").
      const signedFor = signedServiceOf(req.headers.authorization);
      if (signedFor && signedFor !== service) throw wrongServiceScope(service, isQuery);
      if (opts.iamPolicy && caller) {
        authorizeAwsCall(iamPolicy!, world, caller, { service, operation, region: region ?? 'us-west-2', method, path: url.pathname, form, body });
      }

      if (service === 'ssm') {
        return sendJson(res, 200, handleSsm(String(target), body, region ?? 'us-west-2', world.ssmParameters, world.strictness), { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': id });
      }
      if (service === 'monitoring') {
        const answer = handleCloudWatch(world.cloudWatchAlarms, String(target), body, region ?? 'us-west-2', world.accountId, clock.now(), world.strictness);
        if (operation === 'PutMetricAlarm' || operation === 'SetAlarmState') world.record({ service: 'monitoring', operation, target: String(body.AlarmName) });
        return sendJson(res, 200, answer, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': id });
      }
      if (service === 'iam') {
        const xml = handleIam(iamPolicy, world.accountId, form!, id);
        res.writeHead(200, { 'Content-Type': 'text/xml', 'x-amzn-RequestId': id });
        return void res.end(xml);
      }
      if (service === 'sts') {
        const xml = handleSts(identities, caller, form!, id, strictness.trustPolicies ? { policies: trustPolicies, account: world.accountId } : undefined);
        if (operation.startsWith('AssumeRole')) world.record({ service: 'sts', operation, target: form?.get('RoleArn') ?? undefined });
        res.writeHead(200, { 'Content-Type': 'text/xml', 'x-amzn-RequestId': id });
        return void res.end(xml);
      }
      if (service === 'autoscaling') {
        try {
          const result = handleAutoScaling(world, form!, id);
          if (result.mutation) world.record({ service: 'autoscaling', ...result.mutation });
          if (result.mutation && dropped(operation)) return;
          res.writeHead(200, { 'Content-Type': 'text/xml;charset=UTF-8', 'x-amzn-RequestId': id });
          return void res.end(result.xml);
        } catch (error) {
          if (error instanceof AwsApiError && !/^Describe/.test(operation)) {
            world.record({ service: 'autoscaling', operation, target: form!.get('AutoScalingGroupName') ?? form!.get('InstanceId') ?? undefined, error: error.type });
          }
          throw error;
        }
      }
      if (isQuery) {
        refuseDryRun(form);
        const result = handleEc2(world, form!, region, id);
        if (result.mutation) world.record({ service: 'ec2', ...result.mutation });
        if (result.mutation && dropped(operation)) return;
        res.writeHead(200, { 'Content-Type': 'text/xml;charset=UTF-8' });
        return void res.end(result.xml);
      }
      try {
        const result = handleEksRequest(world, { method, path: url.pathname, query: url.searchParams, body });
        if (result.mutation) world.record({ service: 'eks', ...result.mutation });
        if (result.mutation && dropped(operation)) return;
        return sendJson(res, result.status, result.body, { 'x-amzn-RequestId': id });
      } catch (error) {
        if (MUTATING.has(operation) && error instanceof AwsApiError) {
          const cluster = decodeURIComponent(url.pathname.split('/')[2] ?? '');
          world.record({ service: 'eks', operation, cluster, error: error.type });
        }
        throw error;
      }
    } catch (error) {
      const internal = service === 'ec2' ? 'InternalError' : service === 'autoscaling' ? 'InternalFailure' : 'ServerException';
      const awsError = error instanceof AwsApiError ? error : new AwsApiError(500, internal, `Simulator error: ${(error as Error).message}`);
      if (!(error instanceof AwsApiError)) opts.log?.({ level: 'error', message: 'simulator AWS handler failed', error: String((error as Error).stack ?? error) });
      if (awsError.type === 'AccessDeniedException' || awsError.type === 'AccessDenied' || awsError.type === 'UnauthorizedOperation') {
        world.record({ service, operation: form?.get('Action') ?? matchEksRoute(method, url.pathname)?.route.operation ?? String(target ?? ''), error: awsError.type, denied: awsError.message });
      }
      if (service === 'sts') {
        res.writeHead(awsError.status, { 'Content-Type': 'text/xml', 'x-amzn-RequestId': id });
        return void res.end(stsErrorXml(awsError, id));
      }
      if (service === 'iam') {
        res.writeHead(awsError.status, { 'Content-Type': 'text/xml', 'x-amzn-RequestId': id });
        return void res.end(iamErrorXml(awsError, id));
      }
      if (service === 'autoscaling') {
        res.writeHead(awsError.status, { 'Content-Type': 'text/xml;charset=UTF-8', 'x-amzn-RequestId': id });
        return void res.end(autoScalingErrorXml(awsError, id));
      }
      if (isQuery) {
        res.writeHead(awsError.status, { 'Content-Type': 'text/xml;charset=UTF-8' });
        return void res.end(ec2ErrorXml(awsError, id));
      }
      if (service === 'ssm') {
        return sendJson(res, awsError.status, { __type: awsError.type, message: awsError.message }, { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': id });
      }
      if (service === 'monitoring') {
        const { body: errorBody, headers } = cloudWatchErrorHeaders(awsError);
        return sendJson(res, awsError.status, errorBody, { ...headers, 'x-amzn-RequestId': id });
      }
      return sendJson(res, awsError.status, { message: awsError.message, ...awsError.fields }, { 'x-amzn-errortype': awsError.type, 'x-amzn-RequestId': id });
    }
  };

  const kubeWrites: SimServer['kubeWrites'] = [];
  const handleKube = async (req: IncomingMessage, res: ServerResponse, rawUrl: string): Promise<void> => {
    const rest = rawUrl.slice('/k8s/'.length);
    const slash = rest.search(/[/?]/);
    const name = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash));
    const path = slash < 0 ? '/' : rest.slice(slash);
    const cluster = world.cluster(name);
    if (!cluster) {
      return sendJson(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `no simulated cluster named "${name}"`, reason: 'NotFound', code: 404 });
    }
    requests.kube(req.method ?? 'GET', path, name);
    // --latency-ms holds every Kubernetes answer too (a watch: before its stream starts).
    if (world.faults.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, world.faults.latencyMs));
    // An unreachable API server: the connection drops, as when its endpoint is firewalled off.
    if (cluster.unreachable) return void req.socket.destroy();
    if (req.method !== 'GET' && !/accessreviews|tokenreviews/.test(path)) kubeWrites.push({ cluster: name, method: req.method ?? 'POST', path: path.split('?')[0], at: clock.now() });
    await handleKubeRequest(cluster.store, req, res, path.startsWith('/') ? path : `/${path}`, {
      ...kubeAccess.userOf(req, name),
      onForbidden: (message) => world.record({ service: 'kubernetes', operation: `${req.method ?? 'GET'} ${path.split('?')[0]}`, cluster: name, error: 'Forbidden', denied: message }),
    });
  };

  const server = createServer((req, res) => {
    const rawUrl = req.url ?? '/';
    const url = new URL(rawUrl, 'http://sim.invalid');
    const work = async () => {
      if (url.pathname.startsWith('/k8s/')) return handleKube(req, res, rawUrl);
      if (url.pathname === '/_sim/requests') {
        if (req.method === 'DELETE') requests.reset();
        return sendJson(res, 200, requests.counts(url.searchParams.get('cluster') ?? undefined));
      }
      if (url.pathname === '/_sim/disruptions' && req.method === 'GET') {
        const since = parseSince(url.searchParams.get('since'));
        if (typeof since === 'string') return sendJson(res, 400, { message: since });
        return sendJson(res, 200, { disruptions: listDisruptions(world.calls, kubeWrites, { cluster: url.searchParams.get('cluster') ?? undefined, since }) });
      }
      if (url.pathname === '/_sim' || url.pathname.startsWith('/_sim/')) {
        const raw = await readBody(req);
        let body: Record<string, any> = {};
        try {
          body = raw ? JSON.parse(raw) : {};
        } catch {
          return sendJson(res, 400, { message: 'The control request body is not valid JSON.' });
        }
        const result = await handleControl(world, req.method ?? 'GET', url, body, logLines);
        if (result.text) {
          res.writeHead(result.status, { 'Content-Type': result.text.contentType, 'Content-Length': Buffer.byteLength(result.text.body) });
          return void res.end(result.text.body);
        }
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
    kubeWrites,
    requests,
    close() {
      closed ??= (async () => {
        world.stop();
        clock.stop?.();
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
