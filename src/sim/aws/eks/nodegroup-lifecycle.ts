import type { CreateNodegroupRequest, UpdateNodegroupConfigRequest } from '@aws-sdk/client-eks';
import { hexOf } from '../hex-of.js';
import { invalidParameter, resourceInUse } from '../aws-error.js';
import { inProgressUpdate } from './cluster-update.js';
import { cordonNode, terminateNode } from '../node-factory.js';
import { DRAIN_TIMEOUT_MS, drainNodes, waitForNodesReady } from '../node-drain.js';
import { familyOfAmiType, k8sTaintEffect, launchNodegroupNode, nodegroupImage, nodesOfNodegroup } from './nodegroup-nodes.js';
import { compareMinors, isAmiPublished, isKnownMinor, minorOfAmi, releaseVersionFor } from './version-catalog.js';
import type { EksTaintEffect, SimCluster, SimNodegroup, SimUpdate, SimWorld } from '../world-types.js';

/**
 * CreateNodegroup (CREATING → instances join and turn Ready → ACTIVE), DeleteNodegroup (DELETING: cordon, drain
 * honouring PDBs, terminate, gone) and UpdateNodegroupConfig (labels, taints, scaling, update config).
 *
 * A drain blocked by a PDB during deletion keeps retrying, as the workshop's blue-mng deletion does: after 15
 * minutes the node group reports a PodEvictionFailure health issue, and the deletion completes as soon as the
 * PDB allows the eviction (e.g. once orders is scaled to 2 replicas).
 */

const EKS_EFFECTS: Record<string, EksTaintEffect> = { NO_SCHEDULE: 'NO_SCHEDULE', NO_EXECUTE: 'NO_EXECUTE', PREFER_NO_SCHEDULE: 'PREFER_NO_SCHEDULE' };

export function createNodegroup(world: SimWorld, cluster: SimCluster, request: CreateNodegroupRequest): SimNodegroup {
  const name = request.nodegroupName ?? '';
  if (!/^[0-9A-Za-z][A-Za-z0-9\-_]{0,62}$/.test(name)) throw invalidParameter(`Nodegroup name ${name} is invalid.`);
  if (cluster.nodegroups.has(name)) {
    throw resourceInUse(`NodeGroup already exists with name ${name} and cluster name ${cluster.name}`, { clusterName: cluster.name, nodegroupName: name });
  }
  if (cluster.status !== 'ACTIVE') throw resourceInUse(`Cluster ${cluster.name} is ${cluster.status}; node groups can be created once it is ACTIVE.`, { clusterName: cluster.name });
  const subnets = request.subnets ?? [];
  if (!subnets.length) throw invalidParameter('Subnets are required to create a node group.');
  for (const id of subnets) {
    const subnet = world.subnets.get(id);
    if (!subnet || subnet.vpcId !== cluster.vpcId) throw invalidParameter(`Subnet ${id} does not exist in the VPC of cluster ${cluster.name}.`);
  }
  let launchTemplate: SimNodegroup['launchTemplate'];
  let amiType = request.amiType ?? (compareMinors(cluster.version, '1.30') >= 0 ? 'AL2023_x86_64_STANDARD' : 'AL2_x86_64');
  let version = request.version ?? cluster.version;
  if (request.launchTemplate) {
    const lt = [...world.launchTemplates.values()].find((t) => t.id === request.launchTemplate?.id || t.name === request.launchTemplate?.name);
    if (!lt) throw invalidParameter(`Launch template ${request.launchTemplate.id ?? request.launchTemplate.name} does not exist.`);
    const ltVersion = request.launchTemplate.version ?? String(lt.defaultVersion);
    const entry = lt.versions.get(Number(ltVersion));
    if (!entry) throw invalidParameter(`Launch template ${lt.name} has no version ${ltVersion}.`);
    launchTemplate = { id: lt.id, name: lt.name, version: ltVersion };
    if (entry.imageId) {
      if (request.amiType || request.version) throw invalidParameter('You cannot specify the field kubernetesVersion or amiType when using custom AMIs');
      amiType = 'CUSTOM';
      version = minorOfAmi(entry.imageId) ?? cluster.version;
    }
  }
  if (!isKnownMinor(version) || compareMinors(version, cluster.version) > 0) {
    throw invalidParameter(`Requested Kubernetes version ${version} is invalid. Node group version must not be newer than the cluster version ${cluster.version}.`);
  }
  if (amiType !== 'CUSTOM' && !isAmiPublished(version, familyOfAmiType(amiType).family)) {
    throw invalidParameter(`Requested AMI type ${amiType} is not supported for kubernetes version ${version}.`);
  }
  const scaling = request.scalingConfig ?? {};
  const desiredSize = scaling.desiredSize ?? 2;
  const ng: SimNodegroup = {
    name,
    arn: `arn:aws:eks:${cluster.region}:${world.accountId}:nodegroup/${cluster.name}/${name}/${hexOf(name + world.clock.now(), 8)}-${hexOf(name, 4)}-${hexOf(name + 'b', 4)}-${hexOf(name + 'c', 4)}-${hexOf(name + 'd', 12)}`,
    clusterName: cluster.name,
    version,
    releaseVersion: '',
    amiType,
    capacityType: request.capacityType === 'SPOT' ? 'SPOT' : 'ON_DEMAND',
    instanceTypes: request.instanceTypes?.length ? request.instanceTypes : ['t3.medium'],
    scaling: { minSize: scaling.minSize ?? 1, maxSize: scaling.maxSize ?? Math.max(2, desiredSize), desiredSize },
    updateConfig: { maxUnavailable: request.updateConfig?.maxUnavailable, maxUnavailablePercentage: request.updateConfig?.maxUnavailablePercentage },
    labels: request.labels ?? {},
    taints: (request.taints ?? []).map((t) => ({ key: t.key ?? '', value: t.value, effect: EKS_EFFECTS[t.effect ?? 'NO_SCHEDULE'] ?? 'NO_SCHEDULE' })),
    subnets,
    launchTemplate,
    status: 'CREATING',
    healthIssues: [],
    createdAt: world.clock.now(),
    modifiedAt: world.clock.now(),
    nodeRole: request.nodeRole ?? `arn:aws:iam::${world.accountId}:role/${name}-node-role`,
    diskSize: request.diskSize ?? 20,
    asgName: `eks-${name}-${hexOf(name + 'asg', 8)}-${hexOf(name + 'asg1', 4)}-${hexOf(name + 'asg2', 4)}-${hexOf(name + 'asg3', 4)}-${hexOf(name + 'asg4', 12)}`,
    tags: request.tags ?? {},
  };
  if (!ng.updateConfig.maxUnavailable && !ng.updateConfig.maxUnavailablePercentage) ng.updateConfig = { maxUnavailable: 1 };
  const image = nodegroupImage(world, ng);
  ng.releaseVersion = amiType === 'CUSTOM' ? image.imageId : releaseVersionFor(version, familyOfAmiType(amiType).family);
  cluster.nodegroups.set(name, ng);
  void finishCreate(world, cluster, ng);
  return ng;
}

async function finishCreate(world: SimWorld, cluster: SimCluster, ng: SimNodegroup): Promise<void> {
  const image = nodegroupImage(world, ng);
  const nodes: string[] = [];
  for (let i = 0; i < ng.scaling.desiredSize; i++) nodes.push(launchNodegroupNode(world, cluster, ng, image, { readyAfterMs: world.settings.nodeReadyMs }));
  const ready = await waitForNodesReady(world, cluster, nodes, Math.max(DRAIN_TIMEOUT_MS, world.settings.nodegroupCreateMs));
  if (ready && world.clock.now() - ng.createdAt < world.settings.nodegroupCreateMs) {
    await world.sleep(world.settings.nodegroupCreateMs - (world.clock.now() - ng.createdAt));
  }
  if (cluster.nodegroups.get(ng.name) !== ng) return;
  ng.modifiedAt = world.clock.now();
  if (ready) {
    ng.status = 'ACTIVE';
  } else {
    ng.status = 'CREATE_FAILED';
    ng.healthIssues = [{ code: 'NodeCreationFailure', message: 'Instances failed to join the kubernetes cluster', resourceIds: nodes }];
  }
  world.log({ cluster: cluster.name, component: 'eks-nodegroup', nodegroup: ng.name, message: `node group ${ng.status}` });
}

export function deleteNodegroup(world: SimWorld, cluster: SimCluster, ng: SimNodegroup): SimNodegroup {
  if (ng.status === 'DELETING') throw resourceInUse(`Nodegroup ${ng.name} is already being deleted.`, { clusterName: cluster.name, nodegroupName: ng.name });
  if (inProgressUpdate(cluster, { nodegroupName: ng.name })) {
    throw resourceInUse(`Nodegroup ${ng.name} has an update in progress; wait for it to finish before deleting it.`, { clusterName: cluster.name, nodegroupName: ng.name });
  }
  ng.status = 'DELETING';
  ng.modifiedAt = world.clock.now();
  void finishDelete(world, cluster, ng);
  return ng;
}

async function finishDelete(world: SimWorld, cluster: SimCluster, ng: SimNodegroup): Promise<void> {
  const nodes = nodesOfNodegroup(cluster, ng.name).map((n) => n.metadata.name);
  for (const name of nodes) cordonNode(cluster, name);
  world.log({ cluster: cluster.name, component: 'eks-nodegroup', nodegroup: ng.name, message: 'deleting: cordoned and draining nodes', nodes });
  await drainNodes(world, cluster, nodes, {
    force: false,
    retryForever: true,
    onTimeout: (blocked) => {
      ng.healthIssues = [
        {
          code: 'PodEvictionFailure',
          message: `Reached max retries while trying to evict pods from nodes in node group ${ng.name}`,
          resourceIds: [...new Set(blocked.map((b) => b.node))],
        },
      ];
      world.log({ cluster: cluster.name, component: 'eks-nodegroup', nodegroup: ng.name, message: 'deletion blocked by pod disruption budgets', blocked });
    },
  });
  for (const name of nodes) terminateNode(world, cluster, name);
  await world.sleep(30_000);
  cluster.nodegroups.delete(ng.name);
  world.log({ cluster: cluster.name, component: 'eks-nodegroup', nodegroup: ng.name, message: 'node group deleted' });
}

const CONFIG_UPDATE_MS = 30_000;

export function startNodegroupConfigUpdate(world: SimWorld, cluster: SimCluster, ng: SimNodegroup, request: UpdateNodegroupConfigRequest): SimUpdate {
  if (ng.status !== 'ACTIVE' || inProgressUpdate(cluster, { nodegroupName: ng.name })) {
    throw resourceInUse(`Nodegroup ${ng.name} is currently ${ng.status === 'ACTIVE' ? 'being updated' : ng.status}; wait for it to finish.`, { clusterName: cluster.name, nodegroupName: ng.name });
  }
  const params: SimUpdate['params'] = [];
  const scaling = { ...ng.scaling, ...definedOnly(request.scalingConfig ?? {}) };
  if (scaling.minSize > scaling.desiredSize || scaling.desiredSize > scaling.maxSize) {
    throw invalidParameter('Minimum capacity must be less than or equal to desired capacity, and desired capacity less than or equal to maximum capacity.', { nodegroupName: ng.name });
  }
  if (request.scalingConfig) {
    for (const [key, type] of [['minSize', 'MinSize'], ['maxSize', 'MaxSize'], ['desiredSize', 'DesiredSize']] as const) {
      if (request.scalingConfig[key] !== undefined) params.push({ type, value: String(request.scalingConfig[key]) });
    }
  }
  if (request.updateConfig?.maxUnavailable !== undefined) params.push({ type: 'MaxUnavailable', value: String(request.updateConfig.maxUnavailable) });
  if (request.updateConfig?.maxUnavailablePercentage !== undefined) params.push({ type: 'MaxUnavailablePercentage', value: String(request.updateConfig.maxUnavailablePercentage) });
  if (request.labels?.addOrUpdateLabels) params.push({ type: 'LabelsToAdd', value: JSON.stringify(request.labels.addOrUpdateLabels) });
  if (request.labels?.removeLabels) params.push({ type: 'LabelsToRemove', value: JSON.stringify(request.labels.removeLabels) });
  if (request.taints?.addOrUpdateTaints) params.push({ type: 'TaintsToAdd', value: JSON.stringify(request.taints.addOrUpdateTaints) });
  if (request.taints?.removeTaints) params.push({ type: 'TaintsToRemove', value: JSON.stringify(request.taints.removeTaints) });
  const update: SimUpdate = { id: world.newId(), type: 'ConfigUpdate', status: 'InProgress', params, createdAt: world.clock.now(), errors: [], scope: { nodegroupName: ng.name } };
  cluster.updates.push(update);
  ng.status = 'UPDATING';
  world.after(CONFIG_UPDATE_MS, () => {
    applyConfig(world, cluster, ng, request, scaling);
    ng.status = 'ACTIVE';
    ng.modifiedAt = world.clock.now();
    update.status = 'Successful';
    update.endedAt = world.clock.now();
  });
  return update;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function applyConfig(world: SimWorld, cluster: SimCluster, ng: SimNodegroup, request: UpdateNodegroupConfigRequest, scaling: SimNodegroup['scaling']): void {
  if (request.updateConfig) {
    ng.updateConfig = definedOnly({ maxUnavailable: request.updateConfig.maxUnavailable, maxUnavailablePercentage: request.updateConfig.maxUnavailablePercentage });
  }
  const labels = { ...ng.labels, ...(request.labels?.addOrUpdateLabels ?? {}) };
  for (const key of request.labels?.removeLabels ?? []) delete labels[key];
  let taints = ng.taints.filter((t) => !(request.taints?.removeTaints ?? []).some((r) => r.key === t.key && (!r.effect || r.effect === t.effect)));
  for (const t of request.taints?.addOrUpdateTaints ?? []) {
    taints = taints.filter((x) => x.key !== t.key);
    taints.push({ key: t.key ?? '', value: t.value, effect: EKS_EFFECTS[t.effect ?? 'NO_SCHEDULE'] ?? 'NO_SCHEDULE' });
  }
  const removedLabels = Object.keys(ng.labels).filter((k) => !(k in labels));
  const removedTaintKeys = ng.taints.map((t) => t.key);
  ng.labels = labels;
  ng.taints = taints;
  // EKS applies label and taint changes to the group's existing nodes in place.
  for (const node of nodesOfNodegroup(cluster, ng.name)) {
    cluster.store.mutate('nodes', node.metadata.name, undefined, (n) => {
      const nodeLabels = { ...n.metadata.labels, ...labels };
      for (const key of removedLabels) delete nodeLabels[key];
      n.metadata.labels = nodeLabels;
      const kept = (n.spec.taints ?? []).filter((t: { key: string }) => !removedTaintKeys.includes(t.key));
      n.spec.taints = [...kept, ...taints.map((t) => ({ key: t.key, value: t.value, effect: k8sTaintEffect(t.effect) }))];
    });
  }
  const before = ng.scaling.desiredSize;
  ng.scaling = scaling;
  const image = nodegroupImage(world, ng);
  for (let i = before; i < scaling.desiredSize; i++) launchNodegroupNode(world, cluster, ng, image, { readyAfterMs: world.settings.nodeReadyMs });
  if (scaling.desiredSize < before) {
    // Scale-in: the ASG picks instances to terminate; EKS's lifecycle hook drains them first (best effort).
    const victims = nodesOfNodegroup(cluster, ng.name).slice(0, before - scaling.desiredSize).map((n) => n.metadata.name);
    for (const name of victims) cordonNode(cluster, name);
    void drainNodes(world, cluster, victims, { force: true, timeoutMs: 5 * 60_000 }).then(() => {
      for (const name of victims) terminateNode(world, cluster, name);
    });
  }
}
