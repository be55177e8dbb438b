import { invalidParameter, notFound, resourceInUse } from '../aws-error.js';
import { addonDefinition, addonVersionEntry, parseAddonVersion } from './addon-catalog.js';
import { inProgressUpdate } from './cluster-update.js';
import { openRollbackWindow } from './rollback-window.js';
import type { SimAddon, SimCluster, SimUpdate, SimWorld } from '../world-types.js';

/**
 * UpdateAddon: checks the version against the catalog and the cluster's minor (and the VPC CNI's one-minor-at-a-time
 * rule), marks the add-on UPDATING, and after the scenario's add-on duration moves it to the new version and rolls
 * its workload's image in the cluster (coredns Deployment, kube-proxy / aws-node DaemonSets) as EKS does.
 */
export interface AddonUpdateRequest {
  addonVersion?: string;
  resolveConflicts?: string;
  serviceAccountRoleArn?: string;
  configurationValues?: string;
}

export function requireAddon(cluster: SimCluster, name: string): SimAddon {
  const addon = cluster.addons.get(name);
  if (!addon) throw notFound(`No addon: ${name} found in cluster: ${cluster.name}`, { clusterName: cluster.name, addonName: name });
  return addon;
}

function checkVersion(world: SimWorld, cluster: SimCluster, addon: SimAddon, version: string): void {
  if (!addonDefinition(addon.name) || !addonVersionEntry(addon.name, version)) {
    throw invalidParameter(`Addon version specified is not supported: ${addon.name} ${version}`, { clusterName: cluster.name, addonName: addon.name });
  }
  const minors = addonVersionEntry(addon.name, version)!.minors;
  // While a rollback is possible, EKS lets add-ons go to a version of N-1 first (rollback-cluster, "Rollback and add-ons").
  const rollbackTo = openRollbackWindow(cluster, world.clock.now())?.version;
  if (!minors.includes(cluster.version) && !(rollbackTo && minors.includes(rollbackTo))) {
    throw invalidParameter(`Addon version ${version} of ${addon.name} is not compatible with Kubernetes version ${cluster.version}.`, { clusterName: cluster.name, addonName: addon.name });
  }
  if (addon.name === 'vpc-cni') {
    const from = parseAddonVersion(addon.version);
    const to = parseAddonVersion(version);
    if (from && to && (from.major !== to.major || Math.abs(from.minor - to.minor) > 1)) {
      throw invalidParameter('Updating VPC-CNI can only go up or down 1 minor version at a time', { clusterName: cluster.name, addonName: addon.name });
    }
  }
}

export function startAddonUpdate(world: SimWorld, cluster: SimCluster, name: string, request: AddonUpdateRequest): SimUpdate {
  const addon = requireAddon(cluster, name);
  if (cluster.status === 'UPDATING') {
    throw resourceInUse(`Cluster ${cluster.name} is currently being updated; update add-on ${name} once it is ACTIVE.`, { clusterName: cluster.name, addonName: name });
  }
  if (addon.status !== 'ACTIVE' && addon.status !== 'DEGRADED' && addon.status !== 'UPDATE_FAILED') {
    throw resourceInUse(`Addon ${name} is currently ${addon.status}.`, { clusterName: cluster.name, addonName: name });
  }
  if (inProgressUpdate(cluster, { addonName: name })) {
    throw resourceInUse(`Addon ${name} has an update in progress.`, { clusterName: cluster.name, addonName: name });
  }
  if (request.resolveConflicts && !['NONE', 'OVERWRITE', 'PRESERVE'].includes(request.resolveConflicts)) {
    throw invalidParameter(`resolveConflicts must be one of NONE, OVERWRITE, PRESERVE; got ${request.resolveConflicts}.`, { addonName: name });
  }
  const version = request.addonVersion ?? addon.version;
  checkVersion(world, cluster, addon, version);
  const params: SimUpdate['params'] = [{ type: 'AddonVersion', value: version }];
  if (request.resolveConflicts) params.push({ type: 'ResolveConflicts', value: request.resolveConflicts });
  if (request.serviceAccountRoleArn) params.push({ type: 'ServiceAccountRoleArn', value: request.serviceAccountRoleArn });
  if (request.configurationValues !== undefined) params.push({ type: 'ConfigurationValues', value: request.configurationValues });
  const update: SimUpdate = { id: world.newId(), type: 'AddonUpdate', status: 'InProgress', params, createdAt: world.clock.now(), errors: [], scope: { addonName: name } };
  cluster.updates.push(update);
  addon.status = 'UPDATING';
  addon.modifiedAt = world.clock.now();
  world.after(world.settings.addonUpdateMs, () => {
    addon.version = version;
    if (request.serviceAccountRoleArn) addon.serviceAccountRoleArn = request.serviceAccountRoleArn;
    if (request.configurationValues !== undefined) addon.configurationValues = request.configurationValues;
    addon.status = 'ACTIVE';
    addon.healthIssues = [];
    addon.modifiedAt = world.clock.now();
    update.status = 'Successful';
    update.endedAt = world.clock.now();
    rollWorkloadImage(cluster, name, version);
    world.log({ cluster: cluster.name, component: 'eks-addon', addon: name, message: 'add-on updated', version });
  });
  return update;
}

/** Where each managed add-on runs in the cluster and the image EKS deploys for a version. */
const WORKLOADS: Record<string, { resource: string; name: string; image: (region: string, version: string) => string }> = {
  coredns: { resource: 'deployments', name: 'coredns', image: (r, v) => `602401143452.dkr.ecr.${r}.amazonaws.com/eks/coredns:${v}` },
  'kube-proxy': { resource: 'daemonsets', name: 'kube-proxy', image: (r, v) => `602401143452.dkr.ecr.${r}.amazonaws.com/eks/kube-proxy:${v.replace('-eksbuild', '-minimal-eksbuild')}` },
  'vpc-cni': { resource: 'daemonsets', name: 'aws-node', image: (r, v) => `602401143452.dkr.ecr.${r}.amazonaws.com/amazon-k8s-cni:${v}` },
};

function rollWorkloadImage(cluster: SimCluster, addon: string, version: string): void {
  const workload = WORKLOADS[addon];
  if (!workload || !cluster.store.get(workload.resource, workload.name, 'kube-system')) return;
  cluster.store.mutate(workload.resource, workload.name, 'kube-system', (object) => {
    const containers: Array<{ image?: string }> = object.spec?.template?.spec?.containers ?? [];
    if (containers[0]) containers[0].image = workload.image(cluster.region, version);
  });
}
