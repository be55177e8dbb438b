import { AwsApiError, invalidParameter, notFound } from '../aws-error.js';
import { servePage } from '../list-pages.js';
import { addonCatalog } from './addon-catalog.js';
import { requireAddon, startAddonUpdate } from './addon-update.js';
import { cancelUpdate } from './cluster-rollback.js';
import { startClusterVersionUpdate } from './cluster-update.js';
import { epochSeconds, wireAddon, wireCluster, wireClusterVersion, wireFargateProfile, wireInsight, wireInsightSummary, wireNodegroup, wireUpdate } from './eks-wire.js';
import { describeInsightsRefresh, scannedInsights, startInsightsRefresh } from './insights.js';
import { createNodegroup, deleteNodegroup, startNodegroupConfigUpdate } from './nodegroup-lifecycle.js';
import { startNodegroupVersionUpdate } from './nodegroup-update.js';
import { compareMinors } from './version-catalog.js';
import type { SimCluster, SimNodegroup, SimUpdate, SimWorld } from '../world-types.js';

/**
 * The EKS restJson1 API: one table of routes (method + path template, as in the SDK's http bindings) to handlers
 * that read or change the world. Handlers throw AwsApiError for AWS's errors; the server turns those into the
 * status, `x-amzn-errortype` header and `{message}` body the SDK and the aws CLI parse.
 */
export interface EksRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, any>;
}

export interface EksResult {
  status: number;
  body: unknown;
  /** Set for mutating operations: what world.calls records. */
  mutation?: { operation: string; cluster?: string; target?: string };
}

type Handler = (world: SimWorld, params: Record<string, string>, req: EksRequest) => EksResult;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  operation: string;
  handler: Handler;
}

function route(method: string, template: string, operation: string, handler: Handler): Route {
  const names: string[] = [];
  const pattern = new RegExp(
    '^' + template.replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), '([^/]+)')) + '/?$',
  );
  return { method, pattern, names, operation, handler };
}

export function requireCluster(world: SimWorld, name: string): SimCluster {
  const cluster = world.cluster(name);
  if (!cluster) throw notFound(`No cluster found for name: ${name}.`, { clusterName: name });
  return cluster;
}

function requireNodegroup(cluster: SimCluster, name: string): SimNodegroup {
  const ng = cluster.nodegroups.get(name);
  if (!ng) throw notFound(`No node group found for name: ${name}.`, { clusterName: cluster.name, nodegroupName: name });
  return ng;
}

/** EKS pages: maxResults 1–100 ("returns up to 100 results" when unset, EKS API reference ListUpdates et al.). */
const EKS_PAGE = { min: 1, max: 100, default: 100 };

function paginate<T>(world: SimWorld, items: T[], query: URLSearchParams | Record<string, any>): { page: T[]; nextToken?: string } {
  const get = (key: string) => (query instanceof URLSearchParams ? query.get(key) : query[key]);
  return servePage(items, { limit: get('maxResults'), token: get('nextToken') }, EKS_PAGE, world.strictness, {
    badLimit: () => invalidParameter('maxResults must be between 1 and 100.'),
    badToken: () => invalidParameter('The nextToken is not valid.'),
  });
}

/** clientRequestToken idempotency: a retried request with the same token gets the same update back. */
const tokens = new WeakMap<SimCluster, Map<string, SimUpdate>>();
function idempotent(cluster: SimCluster, token: unknown, start: () => SimUpdate): { update: SimUpdate; repeated: boolean } {
  if (typeof token !== 'string' || !token) return { update: start(), repeated: false };
  const seen = tokens.get(cluster) ?? new Map<string, SimUpdate>();
  tokens.set(cluster, seen);
  const existing = seen.get(token);
  if (existing) return { update: existing, repeated: true };
  const update = start();
  seen.set(token, update);
  return { update, repeated: false };
}

const cancelTokens = new WeakMap<SimCluster, Set<string>>();

function updateResult(cluster: SimCluster, operation: string, target: string, token: unknown, start: () => SimUpdate): EksResult {
  const { update, repeated } = idempotent(cluster, token, start);
  return { status: 200, body: { update: wireUpdate(update) }, ...(repeated ? {} : { mutation: { operation, cluster: cluster.name, target } }) };
}

function scopeOf(query: URLSearchParams): SimUpdate['scope'] {
  return { nodegroupName: query.get('nodegroupName') ?? undefined, addonName: query.get('addonName') ?? undefined };
}

function ok(body: unknown): EksResult {
  return { status: 200, body };
}

/** ListInsights filter values EKS accepts (InsightsFilter in @aws-sdk/client-eks). */
const INSIGHT_CATEGORIES = ['UPGRADE_READINESS', 'MISCONFIGURATION', 'ROLLBACK_READINESS'];
const INSIGHT_STATUSES = ['PASSING', 'WARNING', 'ERROR', 'UNKNOWN'];

const ROUTES: Route[] = [
  route('GET', '/clusters', 'ListClusters', (world, _p, req) => {
    const { page, nextToken } = paginate(world, [...world.clusters.keys()], req.query);
    return ok({ clusters: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('GET', '/clusters/{name}', 'DescribeCluster', (world, p) => ok({ cluster: wireCluster(world, requireCluster(world, p.name)) })),
  route('GET', '/cluster-versions', 'DescribeClusterVersions', (world, _p, req) => {
    const offered = world.offeredVersions();
    const wanted = req.query.getAll('clusterVersions');
    const defaultVersion = offered.length > 1 ? offered[offered.length - 2] : offered[0];
    let versions = offered.map((v) => wireClusterVersion(world, v, v === defaultVersion));
    if (wanted.length) versions = versions.filter((v) => wanted.includes(String(v.clusterVersion)));
    if (req.query.get('defaultOnly') === 'true') versions = versions.filter((v) => v.defaultVersion);
    const status = req.query.get('versionStatus');
    if (status) versions = versions.filter((v) => v.versionStatus === status);
    versions.sort((a, b) => compareMinors(String(b.clusterVersion), String(a.clusterVersion)));
    const { page, nextToken } = paginate(world, versions, req.query);
    return ok({ clusterVersions: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('POST', '/clusters/{name}/updates', 'UpdateClusterVersion', (world, p, req) => {
    const cluster = requireCluster(world, p.name);
    if (typeof req.body.version !== 'string') throw invalidParameter('version is required.', { clusterName: cluster.name });
    return updateResult(cluster, 'UpdateClusterVersion', req.body.version, req.body.clientRequestToken, () =>
      startClusterVersionUpdate(world, cluster, req.body.version, req.body.force === true, req.body.rollbackConfig),
    );
  }),
  route('POST', '/clusters/{name}/updates/{updateId}/cancel-update', 'CancelUpdate', (world, p, req) => {
    const cluster = requireCluster(world, p.name);
    // A retry with the same clientRequestToken gets the same answer, even once the cancellation is over.
    const token = typeof req.body.clientRequestToken === 'string' && req.body.clientRequestToken ? `${p.updateId}/${req.body.clientRequestToken}` : undefined;
    const seen = cancelTokens.get(cluster) ?? new Set<string>();
    cancelTokens.set(cluster, seen);
    const known = token && seen.has(token) ? cluster.updates.find((u) => u.id === p.updateId) : undefined;
    if (known) return ok({ update: wireUpdate(known) });
    const before = cluster.updates.find((u) => u.id === p.updateId)?.cancellation;
    const update = cancelUpdate(world, cluster, p.updateId);
    if (token) seen.add(token);
    // A repeated cancel of an update already being cancelled changes nothing (no new mutation).
    return { status: 200, body: { update: wireUpdate(update) }, ...(before ? {} : { mutation: { operation: 'CancelUpdate', cluster: cluster.name, target: update.id } }) };
  }),
  route('GET', '/clusters/{name}/updates', 'ListUpdates', (world, p, req) => {
    const cluster = requireCluster(world, p.name);
    const scope = scopeOf(req.query);
    if (scope.nodegroupName) requireNodegroup(cluster, scope.nodegroupName);
    if (scope.addonName) requireAddon(cluster, scope.addonName);
    const ids = cluster.updates.filter((u) => u.scope.nodegroupName === scope.nodegroupName && u.scope.addonName === scope.addonName).map((u) => u.id);
    const { page, nextToken } = paginate(world, ids, req.query);
    return ok({ updateIds: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('GET', '/clusters/{name}/updates/{updateId}', 'DescribeUpdate', (world, p, req) => {
    const cluster = requireCluster(world, p.name);
    const scope = scopeOf(req.query);
    const update = cluster.updates.find((u) => u.id === p.updateId && u.scope.nodegroupName === scope.nodegroupName && u.scope.addonName === scope.addonName);
    if (!update) throw notFound(`No update found for ID: ${p.updateId}.`, { clusterName: cluster.name });
    return ok({ update: wireUpdate(update) });
  }),
  route('GET', '/clusters/{clusterName}/node-groups', 'ListNodegroups', (world, p, req) => {
    const { page, nextToken } = paginate(world, [...requireCluster(world, p.clusterName).nodegroups.keys()], req.query);
    return ok({ nodegroups: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('POST', '/clusters/{clusterName}/node-groups', 'CreateNodegroup', (world, p, req) => {
    const cluster = requireCluster(world, p.clusterName);
    const ng = createNodegroup(world, cluster, { ...req.body, clusterName: cluster.name } as never);
    return { status: 200, body: { nodegroup: wireNodegroup(ng) }, mutation: { operation: 'CreateNodegroup', cluster: cluster.name, target: ng.name } };
  }),
  route('GET', '/clusters/{clusterName}/node-groups/{nodegroupName}', 'DescribeNodegroup', (world, p) =>
    ok({ nodegroup: wireNodegroup(requireNodegroup(requireCluster(world, p.clusterName), p.nodegroupName)) }),
  ),
  route('DELETE', '/clusters/{clusterName}/node-groups/{nodegroupName}', 'DeleteNodegroup', (world, p) => {
    const cluster = requireCluster(world, p.clusterName);
    const ng = deleteNodegroup(world, cluster, requireNodegroup(cluster, p.nodegroupName));
    return { status: 200, body: { nodegroup: wireNodegroup(ng) }, mutation: { operation: 'DeleteNodegroup', cluster: cluster.name, target: ng.name } };
  }),
  route('POST', '/clusters/{clusterName}/node-groups/{nodegroupName}/update-version', 'UpdateNodegroupVersion', (world, p, req) => {
    const cluster = requireCluster(world, p.clusterName);
    const ng = requireNodegroup(cluster, p.nodegroupName);
    return updateResult(cluster, 'UpdateNodegroupVersion', ng.name, req.body.clientRequestToken, () =>
      startNodegroupVersionUpdate(world, cluster, ng, req.body),
    );
  }),
  route('POST', '/clusters/{clusterName}/node-groups/{nodegroupName}/update-config', 'UpdateNodegroupConfig', (world, p, req) => {
    const cluster = requireCluster(world, p.clusterName);
    const ng = requireNodegroup(cluster, p.nodegroupName);
    return updateResult(cluster, 'UpdateNodegroupConfig', ng.name, req.body.clientRequestToken, () =>
      startNodegroupConfigUpdate(world, cluster, ng, req.body as never),
    );
  }),
  route('GET', '/clusters/{clusterName}/addons', 'ListAddons', (world, p, req) => {
    const { page, nextToken } = paginate(world, [...requireCluster(world, p.clusterName).addons.keys()], req.query);
    return ok({ addons: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('GET', '/clusters/{clusterName}/addons/{addonName}', 'DescribeAddon', (world, p) => {
    const cluster = requireCluster(world, p.clusterName);
    return ok({ addon: wireAddon(world, cluster, requireAddon(cluster, p.addonName)) });
  }),
  route('POST', '/clusters/{clusterName}/addons/{addonName}/update', 'UpdateAddon', (world, p, req) => {
    const cluster = requireCluster(world, p.clusterName);
    return updateResult(cluster, 'UpdateAddon', p.addonName, req.body.clientRequestToken, () => startAddonUpdate(world, cluster, p.addonName, req.body));
  }),
  route('GET', '/addons/supported-versions', 'DescribeAddonVersions', (world, _p, req) => ok(describeAddonVersions(world, req.query))),
  route('POST', '/clusters/{clusterName}/insights', 'ListInsights', (world, p, req) => {
    const cluster = requireCluster(world, p.clusterName);
    const filter = (req.body.filter ?? {}) as { categories?: string[]; kubernetesVersions?: string[]; statuses?: string[] };
    const badCategory = (filter.categories ?? []).find((c) => !INSIGHT_CATEGORIES.includes(c));
    if (badCategory !== undefined) {
      throw invalidParameter(`Invalid insight category ${JSON.stringify(badCategory)}; valid categories are ${INSIGHT_CATEGORIES.join(', ')}.`, { clusterName: cluster.name });
    }
    const badStatus = (filter.statuses ?? []).find((c) => !INSIGHT_STATUSES.includes(c));
    if (badStatus !== undefined) {
      throw invalidParameter(`Invalid insight status ${JSON.stringify(badStatus)}; valid statuses are ${INSIGHT_STATUSES.join(', ')}.`, { clusterName: cluster.name });
    }
    const insights = scannedInsights(world, cluster)
      .filter((i) => !filter.categories?.length || filter.categories.includes(i.category))
      .filter((i) => !filter.kubernetesVersions?.length || filter.kubernetesVersions.includes(i.kubernetesVersion))
      .filter((i) => !filter.statuses?.length || filter.statuses.includes(i.insightStatus.status));
    const { page, nextToken } = paginate(world, insights.map(wireInsightSummary), req.body);
    return ok({ insights: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('GET', '/clusters/{clusterName}/insights/{id}', 'DescribeInsight', (world, p) => {
    const cluster = requireCluster(world, p.clusterName);
    const insight = scannedInsights(world, cluster).find((i) => i.id === p.id);
    if (!insight) throw notFound(`No insight found for id: ${p.id}.`, { clusterName: cluster.name });
    return ok({ insight: wireInsight(insight) });
  }),
  route('POST', '/clusters/{clusterName}/insights-refresh', 'StartInsightsRefresh', (world, p) => {
    const cluster = requireCluster(world, p.clusterName);
    return { status: 200, body: startInsightsRefresh(world, cluster, world.clock.now()), mutation: { operation: 'StartInsightsRefresh', cluster: cluster.name } };
  }),
  route('GET', '/clusters/{clusterName}/insights-refresh', 'DescribeInsightsRefresh', (world, p) => {
    const refresh = describeInsightsRefresh(requireCluster(world, p.clusterName), world.clock.now());
    return ok({ ...refresh, startedAt: epochSeconds(refresh.startedAt), ...(refresh.endedAt !== undefined ? { endedAt: epochSeconds(refresh.endedAt) } : {}) });
  }),
  route('GET', '/clusters/{clusterName}/fargate-profiles', 'ListFargateProfiles', (world, p, req) => {
    const { page, nextToken } = paginate(world, [...requireCluster(world, p.clusterName).fargateProfiles.keys()], req.query);
    return ok({ fargateProfileNames: page, ...(nextToken ? { nextToken } : {}) });
  }),
  route('GET', '/clusters/{clusterName}/fargate-profiles/{fargateProfileName}', 'DescribeFargateProfile', (world, p) => {
    const cluster = requireCluster(world, p.clusterName);
    const profile = cluster.fargateProfiles.get(p.fargateProfileName);
    if (!profile) throw notFound(`No Fargate Profile found with name: ${p.fargateProfileName}.`, { clusterName: cluster.name, fargateProfileName: p.fargateProfileName });
    return ok({ fargateProfile: wireFargateProfile(cluster, profile) });
  }),
];

function describeAddonVersions(world: SimWorld, query: URLSearchParams): unknown {
  const name = query.get('addonName');
  const minor = query.get('kubernetesVersion');
  const types = query.getAll('types');
  const addons = addonCatalog()
    .filter((a) => !name || a.name === name)
    .filter((a) => !types.length || types.includes(a.type))
    .map((a) => ({
      addonName: a.name,
      type: a.type,
      addonVersions: a.versions
        .filter((v) => !minor || v.minors.includes(minor))
        .map((v) => ({
          addonVersion: v.addonVersion,
          architecture: ['amd64', 'arm64'],
          computeTypes: ['ec2', 'hybrid'],
          compatibilities: (minor ? [minor] : v.minors).map((m) => ({ clusterVersion: m, platformVersions: ['*'], defaultVersion: v.defaultFor.includes(m) })),
          requiresConfiguration: false,
          requiresIamPermissions: a.name.endsWith('csi-driver') || a.name === 'vpc-cni',
        })),
      publisher: 'eks',
      owner: 'aws',
      defaultNamespace: 'kube-system',
    }))
    .filter((a) => a.addonVersions.length);
  const { page, nextToken } = paginate(world, addons, query);
  return { addons: page, ...(nextToken ? { nextToken } : {}) };
}

export function matchEksRoute(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const r of ROUTES) {
    if (r.method !== method) continue;
    const match = r.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    r.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1])));
    return { route: r, params };
  }
  return undefined;
}

/** Runs one EKS request; the operation name is returned for the call log even when the handler throws. */
export function handleEksRequest(world: SimWorld, req: EksRequest): EksResult & { operation: string } {
  const matched = matchEksRoute(req.method, req.path);
  if (!matched) throw new AwsApiError(404, 'NotFoundException', `No EKS operation for ${req.method} ${req.path}`);
  return { ...matched.route.handler(world, matched.params, req), operation: matched.route.operation };
}
