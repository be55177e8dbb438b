import { applyFaults, createFaultState, describeFaults } from './aws/faults.js';
import { recordInPlaceUpgrade } from './aws/eks/rollback-window.js';
import { nextMinor } from './aws/eks/version-catalog.js';
import type { InsightOverride, SimWorld } from './aws/world-types.js';
import { setPdbStuck, worldState } from './world-state.js';
import { METRICS_CONTENT_TYPE, renderWorkloadMetrics } from './workload-metrics.js';
import { handleWorkloadFail } from './workload-faults.js';

export { worldState } from './world-state.js';

/**
 * The simulator's own control API under /_sim (JSON), for tests and the demo: the mutating-call log, faults, a
 * summary of the world, the controllers' log, and moving a manual clock.
 *
 *   GET    /_sim/healthz                      → {ok: true}
 *   GET    /_sim/calls[?operation=&cluster=]  → {calls: [{service, operation, cluster, target, at}], rejected: [{…, error}]}
 *   GET    /_sim/requests[?cluster=]          → {aws: {'eks DescribeCluster': n}, kube: {'list nodes': n, 'watch nodes': n}}; DELETE resets
 *   DELETE /_sim/calls                        → clears both logs
 *   GET    /_sim/faults                       → current faults
 *   POST   /_sim/faults {latencyMs, throttleRate, errorRate, failNextClusterUpdate: {cluster?, errorCode, errorMessage?}, nodesNeverReady,
 *                                              dropAnswers: {UpdateClusterVersion: 1} (done, then the answer lost)}
 *   DELETE /_sim/faults                       → no faults
 *   GET    /_sim/state                        → clock, speed, faults, offered versions, every cluster with node groups,
 *                                                add-ons, updates, nodes, NodeClaims and PDBs (with the pods they block)
 *   POST   /_sim/speed {speed}                → real-time clocks only: simulated seconds per real second from now on
 *   GET    /_sim/log[?since=N]                → controller log lines (node group phases, Fargate, Karpenter)
 *   GET    /_sim/pdb-minimums                 → per PDB (cluster/namespace/name) the fewest healthy pods it ever covered
 *   GET    /_sim/timeline[?cluster=&kind=&reason=] → {events: [{at, simAt, cluster, kind, object, reason?, message?}]}: NodeClaim
 *                                                deletions (kind nodeclaim-deleted) and new Kubernetes Events (kind event),
 *                                                at = wall-clock epoch ms, simAt = simulated; DELETE clears it
 *   POST   /_sim/advance {ms}                 → manual clocks only: advance simulated time
 *   POST   /_sim/jump {ms}                    → real-time clocks only: skip simulated time forward at once
 *   POST   /_sim/clusters/<name> {unreachable?, healthIssues?: [{code, message}], upgradedFrom?: {version, hoursAgo} | null}
 *                                                (upgradedFrom: the cluster was upgraded in place from that minor, hoursAgo
 *                                                ago — a rollback window is open for 7 days from then; null: created at it)
 *   POST   /_sim/clusters/<name>/insights {category?, name, status, reason?, resources?: [{kubernetesResourceUri|arn, reason?}]}
 *                                                forces an insight (default category ROLLBACK_READINESS) to that status until
 *                                                cleared ({name, category?, clear: true}) or DELETE /_sim/clusters/<name>/insights;
 *                                                either counts as what the last scan found (same lastRefreshTime)
 *   POST   /_sim/clusters/<name>/pdbs/<namespace>/<pdb> {stuck: boolean} → the PDB allows no disruption (or is restored)
 *   GET    /_sim/disruptions[?cluster=&since=] → {disruptions: [{at, cluster, kind, target}]}: the callers' disruptive AWS calls
 *                                                and Kubernetes writes (evictions, pod/node/NodeClaim deletions) in simulated
 *                                                time (bot-disruptions.ts; served by sim-server.ts, which keeps the writes)
 *   GET    /_sim/metrics                      → the workloads in kube-state-metrics' names, Prometheus text format (workload-metrics.ts)
 *   POST   /_sim/workloads/fail {cluster?, namespace, name, onVersion} → that Deployment's pods fail readiness on nodes whose
 *                                                kubelet runs that minor; DELETE (same body) clears it (workload-faults.ts)
 */
export interface ControlResult {
  status: number;
  body: unknown;
  /** A non-JSON answer (the metrics text): sent as is with this content type instead of body. */
  text?: { contentType: string; body: string };
}

export async function handleControl(world: SimWorld, method: string, url: URL, body: Record<string, any>, logLines: Array<Record<string, unknown>>): Promise<ControlResult> {
  const path = url.pathname.replace(/\/+$/, '');
  const route = `${method} ${path}`;
  if (route === 'GET /_sim/healthz') return { status: 200, body: { ok: true } };
  if (route === 'GET /_sim/calls') {
    const operation = url.searchParams.get('operation');
    const cluster = url.searchParams.get('cluster');
    const matches = (c: { operation: string; cluster?: string }) => (!operation || c.operation === operation) && (!cluster || c.cluster === cluster);
    return { status: 200, body: { calls: world.calls.filter(matches), rejected: world.rejectedCalls.filter(matches) } };
  }
  if (route === 'DELETE /_sim/calls') {
    world.calls.splice(0);
    world.rejectedCalls.splice(0);
    return { status: 200, body: { calls: [], rejected: [] } };
  }
  if (route === 'GET /_sim/faults') return { status: 200, body: describeFaults(world.faults) };
  if (route === 'POST /_sim/faults') {
    applyFaults(world.faults, body);
    return { status: 200, body: describeFaults(world.faults) };
  }
  if (route === 'DELETE /_sim/faults') {
    Object.assign(world.faults, createFaultState());
    return { status: 200, body: describeFaults(world.faults) };
  }
  if (route === 'GET /_sim/state') return { status: 200, body: worldState(world) };
  if (route === 'GET /_sim/metrics') return { status: 200, body: undefined, text: { contentType: METRICS_CONTENT_TYPE, body: renderWorkloadMetrics(world) } };
  if (path === '/_sim/workloads/fail' && (method === 'POST' || method === 'DELETE')) return handleWorkloadFail(world, method, body);
  if (route === 'GET /_sim/timeline') {
    const want = (key: 'cluster' | 'kind' | 'reason') => url.searchParams.get(key);
    const events = world.timeline.filter((e) => (!want('cluster') || e.cluster === want('cluster')) && (!want('kind') || e.kind === want('kind')) && (!want('reason') || e.reason === want('reason')));
    return { status: 200, body: { events } };
  }
  if (route === 'DELETE /_sim/timeline') {
    world.timeline.splice(0);
    return { status: 200, body: { events: [] } };
  }
  if (route === 'GET /_sim/pdb-minimums') return { status: 200, body: Object.fromEntries(world.pdbMinimums) };
  if (route === 'GET /_sim/log') {
    const since = Number(url.searchParams.get('since') ?? 0);
    return { status: 200, body: { lines: logLines.slice(since), next: logLines.length } };
  }
  if (route === 'POST /_sim/advance') {
    if (!world.clock.advance) return { status: 400, body: { message: 'The simulator runs on a real-time clock; start it with a manual clock to advance time.' } };
    const ms = Number(body.ms);
    if (!(ms >= 0)) return { status: 400, body: { message: 'advance needs {"ms": <simulated milliseconds ≥ 0>}' } };
    await world.clock.advance(ms);
    return { status: 200, body: { now: new Date(world.clock.now()).toISOString() } };
  }
  if (route === 'POST /_sim/speed') {
    const speed = Number(body.speed);
    if (!world.clock.setSpeed) return { status: 400, body: { message: 'This simulator runs on a manual clock; its speed cannot change (use POST /_sim/advance).' } };
    if (!(speed > 0) || !Number.isFinite(speed) || speed > 10_000) {
      return { status: 400, body: { message: `speed needs {"speed": <simulated seconds per real second, above 0 and at most 10000>}, got ${JSON.stringify(body.speed)}` } };
    }
    world.clock.setSpeed(speed);
    return { status: 200, body: { speed: world.clock.speed, now: new Date(world.clock.now()).toISOString() } };
  }
  const pdbMatch = /^\/_sim\/clusters\/([^/]+)\/pdbs\/([^/]+)\/([^/]+)$/.exec(path);
  if (pdbMatch && method === 'POST') {
    const [clusterName, namespace, name] = pdbMatch.slice(1).map(decodeURIComponent);
    const cluster = world.cluster(clusterName);
    if (!cluster) return { status: 404, body: { message: `No cluster ${clusterName} in this scenario.` } };
    if (typeof body.stuck !== 'boolean') return { status: 400, body: { message: 'A PDB change needs {"stuck": true} or {"stuck": false}.' } };
    const pdb = setPdbStuck(cluster, namespace, name, body.stuck);
    if (!pdb) return { status: 404, body: { message: `No PodDisruptionBudget ${namespace}/${name} in cluster ${clusterName}.` } };
    return { status: 200, body: { namespace, name, stuck: body.stuck, minAvailable: pdb.spec?.minAvailable, maxUnavailable: pdb.spec?.maxUnavailable } };
  }
  if (route === 'POST /_sim/jump') {
    if (!world.clock.jump) return { status: 400, body: { message: 'The simulator runs on a manual clock; use POST /_sim/advance to move it.' } };
    const ms = Number(body.ms);
    if (!(ms >= 0)) return { status: 400, body: { message: 'jump needs {"ms": <simulated milliseconds ≥ 0>}' } };
    world.clock.jump(ms);
    return { status: 200, body: { now: new Date(world.clock.now()).toISOString() } };
  }
  const insightsMatch = /^\/_sim\/clusters\/([^/]+)\/insights$/.exec(path);
  if (insightsMatch) {
    const cluster = world.cluster(decodeURIComponent(insightsMatch[1]));
    if (!cluster) return { status: 404, body: { message: `No cluster ${insightsMatch[1]} in this scenario.` } };
    if (method === 'DELETE') {
      cluster.insightOverrides.clear();
      cluster.insightsScan = undefined;
      return { status: 200, body: { overrides: [] } };
    }
    if (method === 'POST') {
      const parsed = parseInsightOverride(body);
      if (typeof parsed === 'string') return { status: 400, body: { message: parsed } };
      const key = `${parsed.override.category}/${parsed.override.name}`;
      if (parsed.clear) cluster.insightOverrides.delete(key);
      else cluster.insightOverrides.set(key, parsed.override);
      // As if the last scan had found it: the next answer rescans, keeping that scan's lastRefreshTime.
      cluster.insightsScan = undefined;
      return { status: 200, body: { overrides: [...cluster.insightOverrides.values()] } };
    }
  }
  const clusterMatch = /^\/_sim\/clusters\/([^/]+)$/.exec(path);
  if (clusterMatch && method === 'POST') {
    const cluster = world.cluster(decodeURIComponent(clusterMatch[1]));
    if (!cluster) return { status: 404, body: { message: `No cluster ${clusterMatch[1]} in this scenario.` } };
    if (body.upgradedFrom !== undefined) {
      const from = body.upgradedFrom as { version?: unknown; hoursAgo?: unknown } | null;
      if (from === null) cluster.previousVersion = undefined;
      else if (typeof from?.version !== 'string' || nextMinor(from.version) !== cluster.version || !(Number(from.hoursAgo ?? 24) >= 0)) {
        return { status: 400, body: { message: `upgradedFrom needs {"version": "<the minor just below ${cluster.version}>", "hoursAgo": <hours ≥ 0, default 24>} or null.` } };
      } else recordInPlaceUpgrade(world, cluster, from.version, world.clock.now() - Number(from.hoursAgo ?? 24) * 3600_000);
    }
    if (typeof body.unreachable === 'boolean') cluster.unreachable = body.unreachable;
    if (Array.isArray(body.healthIssues)) cluster.healthIssues = body.healthIssues;
    return { status: 200, body: { name: cluster.name, unreachable: cluster.unreachable, healthIssues: cluster.healthIssues, previousVersion: cluster.previousVersion } };
  }
  return { status: 404, body: { message: `No simulator control route ${route}. See src/sim/sim-control.ts for the list.` } };
}

const OVERRIDE_CATEGORIES = ['ROLLBACK_READINESS', 'UPGRADE_READINESS'] as const;
const OVERRIDE_STATUSES = ['PASSING', 'WARNING', 'ERROR', 'UNKNOWN'] as const;

/** Reads an insight override from a control request; a string is the sentence saying what is wrong. */
function parseInsightOverride(body: Record<string, any>): { override: InsightOverride; clear: boolean } | string {
  const category = body.category ?? 'ROLLBACK_READINESS';
  if (!OVERRIDE_CATEGORIES.includes(category)) return `category must be one of ${OVERRIDE_CATEGORIES.join(', ')}, got ${JSON.stringify(body.category)}.`;
  if (typeof body.name !== 'string' || !body.name) return 'An insight override needs {"name": "<insight name, e.g. Kubelet version skew or API usage compatibility>"}.';
  if (body.clear === true) return { override: { category, name: body.name, status: 'PASSING', resources: [] }, clear: true };
  if (!OVERRIDE_STATUSES.includes(body.status)) return `status must be one of ${OVERRIDE_STATUSES.join(', ')}, got ${JSON.stringify(body.status)}.`;
  const resources = body.resources ?? [];
  if (!Array.isArray(resources) || resources.some((r: any) => typeof r !== 'object' || (typeof r?.kubernetesResourceUri !== 'string' && typeof r?.arn !== 'string'))) {
    return 'resources must be a list of {"kubernetesResourceUri": "/api/v1/…"} or {"arn": "arn:aws:…"}, each with an optional "reason".';
  }
  return {
    override: {
      category,
      name: body.name,
      status: body.status,
      ...(typeof body.reason === 'string' ? { reason: body.reason } : {}),
      resources: resources.map((r: any) => ({ kubernetesResourceUri: r.kubernetesResourceUri, arn: r.arn, reason: typeof r.reason === 'string' ? r.reason : undefined })),
    },
    clear: false,
  };
}
