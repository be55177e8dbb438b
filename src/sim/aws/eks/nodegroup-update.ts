import { invalidParameter, resourceInUse } from '../aws-error.js';
import { inProgressUpdate } from './cluster-update.js';
import { cordonNode, terminateNode } from '../node-factory.js';
import { DRAIN_TIMEOUT_MS, drainNodes, waitForNodesGone, waitForNodesReady } from '../node-drain.js';
import {
  EXCLUDE_LB_LABEL,
  NODEGROUP_IMAGE_LABEL,
  SOURCE_LT_VERSION_LABEL,
  familyOfAmiType,
  launchNodegroupNode,
  nodegroupImage,
  nodesOfNodegroup,
  type NodegroupImage,
} from './nodegroup-nodes.js';
import { openRollbackWindow } from './rollback-window.js';
import { compareMinors, isAmiPublished, isKnownMinor, nextMinor, releaseVersionFor } from './version-catalog.js';
import type { SimCluster, SimNodegroup, SimUpdate, SimWorld } from '../world-types.js';

/**
 * UpdateNodegroupVersion and the phases EKS runs for it (eks.md, "Managed node groups"): setup (new launch
 * template version) → scale up (surge by max(2 × AZs, maxUnavailable), capped at the nodes to replace; wait for
 * Ready; cordon the old nodes and label them exclude-from-external-load-balancers) → upgrade (up to
 * maxUnavailable old nodes at a time: drain; 15 minutes without the pods leaving and no `force` fails the update
 * with PodEvictionFailure; wait 60 s; terminate, and the ASG launches a replacement) → scale down.
 */
export interface NodegroupVersionRequest {
  version?: string;
  releaseVersion?: string;
  launchTemplate?: { id?: string; name?: string; version?: string };
  force?: boolean;
}

const SETUP_MS = 30_000;
const POST_DRAIN_WAIT_MS = 60_000;
/** From the ASG's terminate call to the Node object being gone. */
const TERMINATION_MS = 10_000;

export function maxUnavailableOf(ng: SimNodegroup): number {
  if (ng.updateConfig.maxUnavailable) return ng.updateConfig.maxUnavailable;
  const pct = ng.updateConfig.maxUnavailablePercentage;
  if (pct) return Math.max(1, Math.floor((ng.scaling.desiredSize * pct) / 100));
  return 1;
}

interface Target {
  version: string;
  releaseVersion: string;
  image: NodegroupImage;
  launchTemplateVersion?: string;
}

function resolveTarget(world: SimWorld, cluster: SimCluster, ng: SimNodegroup, request: NodegroupVersionRequest): Target {
  const custom = ng.amiType === 'CUSTOM';
  if (custom) {
    if (request.version) throw invalidParameter('You cannot specify the field kubernetesVersion when using custom AMIs', { nodegroupName: ng.name });
    if (request.releaseVersion) throw invalidParameter('You cannot specify the field releaseVersion when using custom AMIs', { nodegroupName: ng.name });
  }
  let ltVersion = ng.launchTemplate?.version;
  // A launch template is named by id or by name, never both: "Either provide launch template ID or launch template
  // name in the request." (InvalidParameterException, eksctl-io/eksctl#3104).
  if (request.launchTemplate?.id && request.launchTemplate?.name) {
    throw invalidParameter('Either provide launch template ID or launch template name in the request.', { nodegroupName: ng.name });
  }
  if (request.launchTemplate) {
    const lt = ng.launchTemplate ? world.launchTemplates.get(ng.launchTemplate.id) : undefined;
    if (!lt || (request.launchTemplate.id && request.launchTemplate.id !== lt.id) || (request.launchTemplate.name && request.launchTemplate.name !== lt.name)) {
      throw invalidParameter(`The launch template in the request does not match the launch template of node group ${ng.name}.`, { nodegroupName: ng.name });
    }
    const wanted = request.launchTemplate.version ?? String(lt.defaultVersion);
    const resolved = wanted === '$Latest' ? String(Math.max(...lt.versions.keys())) : wanted === '$Default' ? String(lt.defaultVersion) : wanted;
    if (!lt.versions.has(Number(resolved))) {
      throw invalidParameter(`Launch template ${lt.name} has no version ${wanted}.`, { nodegroupName: ng.name });
    }
    ltVersion = resolved;
  }
  if (custom) {
    const image = nodegroupImage(world, ng, ng.version, ltVersion);
    return { version: image.minor, releaseVersion: image.imageId, image, launchTemplateVersion: ltVersion };
  }
  const version = request.version ?? (request.releaseVersion ? request.releaseVersion.split('-')[0].split('.').slice(0, 2).join('.') : cluster.version);
  if (!isKnownMinor(version)) throw invalidParameter(`Requested Kubernetes version ${version} is invalid.`, { nodegroupName: ng.name });
  if (compareMinors(version, cluster.version) > 0) {
    throw invalidParameter(`Requested Kubernetes version ${version} is invalid. Node group version must not be newer than the cluster version ${cluster.version}.`, { nodegroupName: ng.name });
  }
  // Forward, a node group goes to its cluster's version (or stays at its own for a new release): no version in
  // between ("Kubernetes version should be equal to Cluster kubernetes version … or NodeGroup kubernetes version …",
  // InvalidParameterException, aws-controllers-k8s/community#2957).
  if (compareMinors(version, ng.version) > 0 && version !== cluster.version) {
    throw invalidParameter(
      `Requested Kubernetes version ${version} is invalid. Kubernetes version should be equal to Cluster kubernetes version ${cluster.version} or NodeGroup kubernetes version ${ng.version}.`,
      { nodegroupName: ng.name },
    );
  }
  if (compareMinors(version, ng.version) < 0 && !mayRollBackTo(world, cluster, ng, version)) {
    throw invalidParameter(
      `Requested Kubernetes version ${version} is older than the node group's current version ${ng.version}. A node group can go back one minor version only, to the version its cluster can roll back to (within 7 days of the cluster's in-place upgrade) or to the cluster's version after a rollback.`,
      { nodegroupName: ng.name },
    );
  }
  const { family } = familyOfAmiType(ng.amiType);
  if (!isAmiPublished(version, family)) {
    throw invalidParameter(`Requested AMI type ${ng.amiType} is not supported for kubernetes version ${version}.`, { nodegroupName: ng.name });
  }
  const releaseVersion = releaseVersionFor(version, family);
  if (request.releaseVersion && request.releaseVersion !== releaseVersion) {
    throw invalidParameter(`Requested release version ${request.releaseVersion} is not valid for kubernetes version ${version}.`, { nodegroupName: ng.name });
  }
  return { version, releaseVersion, image: nodegroupImage(world, ng, version, ltVersion), launchTemplateVersion: ltVersion };
}

/**
 * Rolling a node group back (rollback-cluster, "Managed Node Groups": UpdateNodegroupVersion to N-1 before the
 * control plane rolls back): allowed one minor down, to the cluster's rollback target while its window is open, or to
 * the cluster's own version when a rollback already took the control plane below the node group.
 */
function mayRollBackTo(world: SimWorld, cluster: SimCluster, ng: SimNodegroup, version: string): boolean {
  if (nextMinor(version) !== ng.version) return false;
  if (version === cluster.version) return true;
  return openRollbackWindow(cluster, world.clock.now())?.version === version;
}

export function startNodegroupVersionUpdate(world: SimWorld, cluster: SimCluster, ng: SimNodegroup, request: NodegroupVersionRequest): SimUpdate {
  if (cluster.status === 'UPDATING' || inProgressUpdate(cluster)) {
    throw resourceInUse(`Cluster ${cluster.name} is currently being updated; wait for it to finish before updating node group ${ng.name}.`, { clusterName: cluster.name, nodegroupName: ng.name });
  }
  if (ng.status !== 'ACTIVE' || inProgressUpdate(cluster, { nodegroupName: ng.name })) {
    throw resourceInUse(`Nodegroup ${ng.name} is currently ${ng.status === 'ACTIVE' ? 'being updated' : ng.status}; wait for it to finish.`, { clusterName: cluster.name, nodegroupName: ng.name });
  }
  const target = resolveTarget(world, cluster, ng, request);
  const params = [
    { type: 'Version', value: target.version },
    { type: 'ReleaseVersion', value: target.releaseVersion },
    ...(target.launchTemplateVersion && ng.launchTemplate
      ? [
          { type: 'LaunchTemplateName', value: ng.launchTemplate.name },
          { type: 'LaunchTemplateVersion', value: target.launchTemplateVersion },
        ]
      : []),
  ];
  const update: SimUpdate = { id: world.newId(), type: 'VersionUpdate', status: 'InProgress', params, createdAt: world.clock.now(), errors: [], scope: { nodegroupName: ng.name } };
  cluster.updates.push(update);
  ng.status = 'UPDATING';
  ng.modifiedAt = world.clock.now();
  void runUpdate(world, cluster, ng, update, target, Boolean(request.force));
  return update;
}

function needsReplacement(node: { metadata: { labels?: Record<string, string> } }, target: Target): boolean {
  const labels = node.metadata.labels ?? {};
  if (labels[NODEGROUP_IMAGE_LABEL] !== target.image.imageId) return true;
  return Boolean(target.launchTemplateVersion && labels[SOURCE_LT_VERSION_LABEL] && labels[SOURCE_LT_VERSION_LABEL] !== target.launchTemplateVersion);
}

async function runUpdate(world: SimWorld, cluster: SimCluster, ng: SimNodegroup, update: SimUpdate, target: Target, force: boolean): Promise<void> {
  const log = (message: string, extra: Record<string, unknown> = {}) =>
    world.log({ cluster: cluster.name, component: 'eks-nodegroup', nodegroup: ng.name, updateId: update.id, message, ...extra });
  const original = { ...ng.scaling };
  const fail = (errorCode: string, errorMessage: string, resourceIds: string[]) => {
    update.status = 'Failed';
    update.endedAt = world.clock.now();
    update.errors = [{ errorCode, errorMessage, resourceIds }];
    ng.status = 'ACTIVE';
    ng.scaling = { ...original };
    ng.modifiedAt = world.clock.now();
    log('update failed', { errorCode, errorMessage });
  };
  const image = { ...target.image };

  log('setup: creating launch template version', { imageId: image.imageId });
  await world.sleep(SETUP_MS);

  const oldNodes = nodesOfNodegroup(cluster, ng.name).filter((n) => needsReplacement(n, target)).map((n) => n.metadata.name);
  const newNodes = nodesOfNodegroup(cluster, ng.name).filter((n) => !needsReplacement(n, target)).map((n) => n.metadata.name);
  const maxUnavailable = maxUnavailableOf(ng);
  const zones = new Set(ng.subnets.map((id) => world.subnets.get(id)?.zone));
  const surge = Math.max(0, Math.min(Math.max(2 * zones.size, maxUnavailable), oldNodes.length) - newNodes.length);

  if (oldNodes.length) {
    log('scale up', { surge, oldNodes: oldNodes.length });
    ng.scaling = { ...original, desiredSize: original.desiredSize + surge, maxSize: original.maxSize + surge };
    for (let i = 0; i < surge; i++) newNodes.push(launchNodegroupNode(world, cluster, ng, image, { readyAfterMs: world.settings.nodeReadyMs }));
    if (!(await waitForNodesReady(world, cluster, newNodes, DRAIN_TIMEOUT_MS))) {
      return fail('NodeCreationFailure', 'Instances failed to join the kubernetes cluster', newNodes.filter((n) => cluster.store.get('nodes', n)));
    }
    for (const name of oldNodes) cordonNode(cluster, name, { [EXCLUDE_LB_LABEL]: 'true' });
    log('cordoned old nodes', { nodes: oldNodes });
  }

  const remaining = [...oldNodes];
  while (remaining.length) {
    const batch: string[] = [];
    while (batch.length < maxUnavailable && remaining.length) batch.push(remaining.splice(Math.floor(world.random() * remaining.length), 1)[0]);
    log('draining nodes', { nodes: batch });
    const outcome = await drainNodes(world, cluster, batch, { force });
    if (!outcome.ok) {
      log('drain blocked', { blocked: outcome.blocked });
      return fail('PodEvictionFailure', `Reached max retries while trying to evict pods from nodes in node group ${ng.name}`, batch);
    }
    await world.sleep(POST_DRAIN_WAIT_MS);
    for (const name of batch) terminateNode(world, cluster, name, TERMINATION_MS);
    await world.sleep(TERMINATION_MS);
    await waitForNodesGone(world, cluster, batch, DRAIN_TIMEOUT_MS);
    log('terminated nodes', { nodes: batch });
    // The ASG replaces terminated instances from the new launch template version until the group is back to size.
    const replacements: string[] = [];
    while (newNodes.length + replacements.length < original.desiredSize && replacements.length < batch.length) {
      replacements.push(launchNodegroupNode(world, cluster, ng, image, { readyAfterMs: world.settings.nodeReadyMs }));
    }
    newNodes.push(...replacements);
    if (replacements.length && !(await waitForNodesReady(world, cluster, replacements, DRAIN_TIMEOUT_MS))) {
      return fail('NodeCreationFailure', 'Instances failed to join the kubernetes cluster', replacements);
    }
  }

  log('scale down');
  ng.scaling = { ...original };
  ng.version = target.version;
  ng.releaseVersion = target.releaseVersion;
  if (ng.launchTemplate && target.launchTemplateVersion) ng.launchTemplate = { ...ng.launchTemplate, version: target.launchTemplateVersion };
  ng.status = 'ACTIVE';
  ng.modifiedAt = world.clock.now();
  update.status = 'Successful';
  update.endedAt = world.clock.now();
  log('update successful', { version: target.version, releaseVersion: target.releaseVersion });
}
