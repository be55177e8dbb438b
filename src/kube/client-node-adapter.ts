/**
 * KubePortFactory over @kubernetes/client-node 1.4: DescribeCluster gives the endpoint and CA, an EKS token
 * (presigned STS GetCallerIdentity, refreshed at 14 minutes) authenticates every request and watch. One KubePort
 * per cluster is built once and reused.
 */

import { PatchStrategy, Watch } from '@kubernetes/client-node';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { credentialProviderFor, type AwsAdapterOptions } from '../aws/aws-client-config.js';
import { createEksTokenSource } from '../aws/eks-token.js';
import type { Logger } from '../log/logger.js';
import type { Metrics } from '../ports/metrics.js';
import { systemClock, type Clock } from '../ports/clock.js';
import { reusedAnswers } from '../domain/reused-answers.js';
import type { EksPortFactory } from '../ports/aws/eks-port.js';
import type { AccessQuestion, KubeList, KubeObject, KubePort, KubePortFactory, KubeResource, ListOptions, PatchType } from '../ports/kube-port.js';
import { createEksKubeConfig } from './eks-kube-config.js';
import { toKubeApiError } from './kube-api-error.js';
import { createKubeRequester, type KubeRequester } from './kube-request.js';
import { describeTarget, KUBE_RESOURCES, resourcePath } from './kube-resources.js';
import { startResilientWatch, type WatchBackoff } from './resilient-watch.js';

export interface KubePortFactoryOptions {
  eks: EksPortFactory;
  /** Base credentials for the token (default: the SDK's default chain); a cluster's roleArn is assumed on top. */
  credentials?: AwsCredentialIdentityProvider | AwsCredentialIdentity;
  /** STS endpoint and web identity token for assuming a cluster's roleArn: the same options the AWS adapters get. */
  aws?: Pick<AwsAdapterOptions, 'endpoint' | 'webIdentityTokenFile'>;
  clock?: Clock;
  logger?: Logger;
  /** Replaces the STS-presigned token (tests, or a cluster reached another way). */
  tokenSourceFor?: (cluster: KubeClusterTarget) => { token(): Promise<string> };
  watchBackoff?: WatchBackoff;
  /**
   * How long a signed token is reused (default EKS_TOKEN_REUSE_MS, 14 minutes: EKS accepts one for 15). Tests that
   * run the simulator with a shorter `eksTokenLifetimeMs` shorten this with it.
   */
  tokenReuseMs?: number;
  /** Counts every request and failure by verb and resource (eks_upgrade_kube_calls_total / _errors_total). */
  metrics?: Metrics;
  /** How long a SelfSubjectAccessReview that answered "allowed" is reused (default ACCESS_REUSE_MS; 0: ask every time). */
  accessReuseMs?: number;
}

type KubeClusterTarget = { name: string; region: string; roleArn?: string };

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: PatchStrategy.MergePatch,
  strategic: PatchStrategy.StrategicMergePatch,
  json: PatchStrategy.JsonPatch,
};
const LIST_PAGE_SIZE = 500;

/**
 * An "allowed" SelfSubjectAccessReview is reused for 5 minutes, by the wall clock: the apiserver itself caches a
 * webhook authorizer's allowed answers that long (kube-apiserver --authorization-webhook-cache-authorized-ttl, default
 * 5m; EKS access entries are such a webhook), so a permission revoked meanwhile could pass there too, and the step
 * that uses it still meets the 403. Denials and failures are never kept: an ACC001 fixed after the plan is seen
 * at the preflight. A plan and the preflight that follows it ask the same 61 questions of the same cluster (bench P8:
 * 122 reviews per cluster before).
 */
export const ACCESS_REUSE_MS = 5 * 60_000;

export function createKubePortFactory(opts: KubePortFactoryOptions): KubePortFactory {
  const ports = new Map<string, Promise<KubePort>>();
  return (cluster) => {
    const key = `${cluster.region}|${cluster.name}|${cluster.roleArn ?? ''}`;
    let port = ports.get(key);
    if (!port) {
      port = connect(cluster, opts);
      ports.set(key, port);
      // A failed connection (cluster still CREATING, no permission) must not stick: the next call tries again.
      port.catch(() => ports.delete(key));
    }
    return port;
  };
}

async function connect(cluster: KubeClusterTarget, opts: KubePortFactoryOptions): Promise<KubePort> {
  const clock = opts.clock ?? systemClock;
  // A DescribeCluster failure is the SDK's error, unchanged, like every EksPort error: callers branch on its name
  // and render it with describeAwsError.
  const described = await opts.eks({ region: cluster.region, roleArn: cluster.roleArn }).describeCluster(cluster.name);
  if (!described.endpoint) {
    throw new Error(
      `connecting to the Kubernetes API of cluster ${cluster.name} failed: the cluster has no API endpoint yet (status ${described.status ?? 'unknown'}); try again once it is ACTIVE`,
    );
  }
  const tokens =
    opts.tokenSourceFor?.(cluster) ??
    createEksTokenSource({
      clusterName: cluster.name,
      region: cluster.region,
      credentials: credentialProviderFor(cluster, { ...opts.aws, credentials: opts.credentials }),
      // Dated by the wall clock, never the injected (possibly simulated) one: EKS checks X-Amz-Date against real time.
      reuseMs: opts.tokenReuseMs,
    });
  const kc = createEksKubeConfig({
    clusterName: cluster.name,
    server: described.endpoint,
    caData: described.certificateAuthority?.data,
    token: () => tokens.token(),
  });
  const request = opts.metrics ? countedRequests(createKubeRequester(kc), opts.metrics) : createKubeRequester(kc);
  return kubePort({ clusterName: cluster.name, request, watcher: new Watch(kc), clock, opts });
}

function kubePort(deps: { clusterName: string; request: KubeRequester; watcher: Watch; clock: Clock; opts: KubePortFactoryOptions }): KubePort {
  const { clusterName, request } = deps;
  const inCluster = `in cluster ${clusterName}`;
  const access = reusedAnswers<boolean>({ reuseMs: deps.opts.accessReuseMs ?? ACCESS_REUSE_MS, now: systemClock.now, keep: (allowed) => allowed });

  function askAccess(question: AccessQuestion): Promise<boolean> {
    const info = KUBE_RESOURCES[question.resource];
    return call(`asking whether the bot may ${question.verb} ${question.subresource ? `${question.resource}/${question.subresource}` : question.resource}`, async () => {
      const review = await request<{ status?: { allowed?: boolean } }>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: { resourceAttributes: { verb: question.verb, group: info.group, resource: info.plural, subresource: question.subresource, namespace: question.namespace } },
        },
      });
      return review?.status?.allowed === true;
    });
  }

  async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toKubeApiError(`${operation} ${inCluster}`, error);
    }
  }

  /**
   * `fromWatchCache`: the list a watch starts from, sent as client-go's reflector sends it (resourceVersion "0"):
   * the apiserver answers it from its watch cache in one response, whatever the size (a limit would be ignored), so
   * a 2,000-pod informer costs one request, not four pages read from etcd.
   */
  async function list<T extends KubeObject>(resource: KubeResource, options: ListOptions = {}, fromWatchCache = false): Promise<KubeList<T>> {
    const info = KUBE_RESOURCES[resource];
    return call(`listing ${describeTarget(resource, options)}`, async () => {
      const items: T[] = [];
      let resourceVersion = '';
      let continueToken: string | undefined;
      const paging = fromWatchCache ? { resourceVersion: '0' } : { limit: LIST_PAGE_SIZE };
      do {
        const page = await request<{ metadata?: { resourceVersion?: string; continue?: string }; items?: T[] }>({
          method: 'GET',
          path: resourcePath(resource, { namespace: options.namespace }),
          query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector, ...paging, continue: continueToken },
        });
        // Items of a list come without apiVersion/kind; fill them in so every object says what it is.
        for (const item of page.items ?? []) {
          items.push({ apiVersion: info.group ? `${info.group}/${info.version}` : info.version, kind: info.kind, ...item });
        }
        // The first page's resourceVersion is the snapshot the whole paged list belongs to (and the one to watch from).
        resourceVersion ||= page.metadata?.resourceVersion ?? '';
        continueToken = page.metadata?.continue || undefined;
      } while (continueToken);
      return { items, resourceVersion };
    });
  }

  return {
    serverVersion: () =>
      call('reading the apiserver version', async () => {
        const version = await request<{ gitVersion?: string }>({ method: 'GET', path: '/version' });
        if (!version?.gitVersion) throw new Error('GET /version returned no gitVersion');
        return version.gitVersion;
      }),

    list: (resource, options) => list(resource, options),

    async get<T extends KubeObject>(resource: KubeResource, name: string, namespace?: string) {
      try {
        return await request<T>({ method: 'GET', path: resourcePath(resource, { namespace, name }) });
      } catch (error) {
        const apiError = toKubeApiError(`reading ${describeTarget(resource, { namespace, name })} ${inCluster}`, error);
        if (apiError.code === 404) return undefined;
        throw apiError;
      }
    },

    patch<T extends KubeObject>(resource: KubeResource, name: string, patch: unknown, options: { namespace?: string; type: PatchType }) {
      // Custom resources (Karpenter's) do not support strategic merge patch (the apiserver answers 415): for them
      // a merge patch is the equivalent.
      const type = options.type === 'strategic' && KUBE_RESOURCES[resource].group.includes('.') ? 'merge' : options.type;
      return call(`patching ${describeTarget(resource, { namespace: options.namespace, name })}`, () =>
        request<T>({
          method: 'PATCH',
          path: resourcePath(resource, { namespace: options.namespace, name }),
          body: patch,
          contentType: PATCH_CONTENT_TYPES[type],
        }),
      );
    },

    canI: (question) => access(`${question.verb} ${question.resource}/${question.subresource ?? ''} ${question.namespace ?? ''}`, () => askAccess(question)),

    evictPod: (namespace, name) =>
      call(`evicting pod ${namespace}/${name}`, async () => {
        await request({
          method: 'POST',
          path: `${resourcePath('pods', { namespace, name })}/eviction`,
          body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
        });
      }),

    async deletePod(namespace, name) {
      try {
        await request({ method: 'DELETE', path: resourcePath('pods', { namespace, name }) });
      } catch (error) {
        const apiError = toKubeApiError(`deleting pod ${namespace}/${name} ${inCluster}`, error);
        // Already gone (deleted meanwhile, or its node went away): what the caller wanted.
        if (apiError.code === 404) return;
        throw apiError;
      }
    },

    watch: (resource, options, handlers) => {
      deps.opts.metrics?.countKubeCall('watch', resource);
      return startResilientWatch({
        description: `watching ${describeTarget(resource, options)} ${inCluster}`,
        path: resourcePath(resource, { namespace: options.namespace }),
        query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
        list: () => list(resource, options, true),
        watcher: deps.watcher,
        toError: (operation, error) => toKubeApiError(operation, error),
        handlers,
        clock: deps.clock,
        logger: deps.opts.logger,
        backoff: deps.opts.watchBackoff,
      });
    },
  };
}

/** The RBAC-style verb and resource of a request path, for metric labels (bounded: resources come from our code). */
export function kubeRequestLabels(method: string, path: string): { verb: string; resource: string } {
  const segments = path.split('?')[0].split('/').filter(Boolean);
  const plurals = new Set(Object.values(KUBE_RESOURCES).map((r) => r.plural).concat('selfsubjectaccessreviews'));
  let at = -1;
  segments.forEach((segment, index) => {
    if (plurals.has(segment)) at = index;
  });
  if (at < 0) return { verb: method.toLowerCase(), resource: segments.join('/') || '/' };
  const named = at < segments.length - 1;
  const subresource = segments[at + 2];
  const resource = subresource ? `${segments[at]}/${subresource}` : segments[at];
  const verb = method === 'GET' ? (named ? 'get' : 'list') : method === 'POST' ? 'create' : method === 'DELETE' ? 'delete' : method.toLowerCase();
  return { verb, resource };
}

function countedRequests(request: KubeRequester, metrics: Metrics): KubeRequester {
  return async <T>(req: Parameters<KubeRequester>[0]): Promise<T> => {
    const { verb, resource } = kubeRequestLabels(req.method, req.path);
    try {
      const result = await request<T>(req);
      metrics.countKubeCall(verb, resource);
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      metrics.countKubeCall(verb, resource, typeof code === 'number' ? code : 0);
      throw error;
    }
  };
}
