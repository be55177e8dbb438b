import { applyFaults, createFaultState, describeFaults } from './aws/faults.js';
import { isNodeReady } from './aws/node-factory.js';
import type { SimWorld } from './aws/world-types.js';

/**
 * The simulator's own control API under /_sim (JSON), for tests and the demo: the mutating-call log, faults, a
 * summary of the world, the controllers' log, and moving a manual clock.
 *
 *   GET    /_sim/healthz                      → {ok: true}
 *   GET    /_sim/calls[?operation=&cluster=]  → {calls: [{service, operation, cluster, target, at}], rejected: [{…, error}]}
 *   DELETE /_sim/calls                        → clears both logs
 *   GET    /_sim/faults                       → current faults
 *   POST   /_sim/faults {latencyMs, throttleRate, errorRate, failNextClusterUpdate: {cluster?, errorCode, errorMessage?}, nodesNeverReady}
 *   DELETE /_sim/faults                       → no faults
 *   GET    /_sim/state                        → clock, offered versions, every cluster with node groups, add-ons, updates, nodes
 *   GET    /_sim/log[?since=N]                → controller log lines (node group phases, Fargate, Karpenter)
 *   GET    /_sim/pdb-minimums                 → per PDB (cluster/namespace/name) the fewest healthy pods it ever covered
 *   POST   /_sim/advance {ms}                 → manual clocks only: advance simulated time
 *   POST   /_sim/clusters/<name> {unreachable?, healthIssues?: [{code, message}]}
 */
export interface ControlResult {
  status: number;
  body: unknown;
}

export function worldState(world: SimWorld): Record<string, unknown> {
  return {
    scenario: world.scenario.name,
    now: new Date(world.clock.now()).toISOString(),
    speed: world.clock.speed,
    offeredVersions: world.offeredVersions(),
    clusters: [...world.clusters.values()].map((c) => ({
      name: c.name,
      region: c.region,
      version: c.version,
      platformVersion: c.platformVersion,
      status: c.status,
      unreachable: c.unreachable,
      gitVersion: c.store.gitVersion,
      updates: c.updates.map((u) => ({ id: u.id, type: u.type, status: u.status, scope: u.scope, params: u.params, errors: u.errors })),
      nodegroups: [...c.nodegroups.values()].map((ng) => ({ name: ng.name, status: ng.status, version: ng.version, releaseVersion: ng.releaseVersion, scaling: ng.scaling, health: ng.healthIssues })),
      addons: [...c.addons.values()].map((a) => ({ name: a.name, version: a.version, status: a.status })),
      autoScalingGroups: [...world.autoScalingGroups.values()].filter((g) => g.clusterName === c.name).map((g) => ({
        name: g.name, launchTemplate: g.launchTemplate, minSize: g.minSize, maxSize: g.maxSize, desiredCapacity: g.desiredCapacity,
        instances: [...g.instances.values()].map((i) => ({ instanceId: i.instanceId, node: i.nodeName, imageId: i.imageId, lifecycleState: i.lifecycleState, launchTemplateVersion: i.launchTemplateVersion })),
        refreshes: g.refreshes.map((r) => ({ id: r.id, status: r.status, replaced: r.replaced, total: r.total })),
      })),
      nodes: c.store.list('nodes').map((n) => ({
        name: n.metadata.name,
        kubeletVersion: n.status?.nodeInfo?.kubeletVersion,
        ready: isNodeReady(n),
        unschedulable: Boolean(n.spec?.unschedulable),
        nodegroup: n.metadata.labels?.['eks.amazonaws.com/nodegroup'],
        nodepool: n.metadata.labels?.['karpenter.sh/nodepool'],
        computeType: n.metadata.labels?.['eks.amazonaws.com/compute-type'],
      })),
    })),
  };
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
  const clusterMatch = /^\/_sim\/clusters\/([^/]+)$/.exec(path);
  if (clusterMatch && method === 'POST') {
    const cluster = world.cluster(decodeURIComponent(clusterMatch[1]));
    if (!cluster) return { status: 404, body: { message: `No cluster ${clusterMatch[1]} in this scenario.` } };
    if (typeof body.unreachable === 'boolean') cluster.unreachable = body.unreachable;
    if (Array.isArray(body.healthIssues)) cluster.healthIssues = body.healthIssues;
    return { status: 200, body: { name: cluster.name, unreachable: cluster.unreachable, healthIssues: cluster.healthIssues } };
  }
  return { status: 404, body: { message: `No simulator control route ${route}. See src/sim/sim-control.ts for the list.` } };
}
