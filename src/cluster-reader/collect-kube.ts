import { KubeApiError, type KubeObject, type KubePort, type KubeResource } from '../ports/kube-port.js';
import { readFailed, readOk, type HelmRelease, type KarpenterObjects, type KubeSnapshot, type Read } from '../planning/cluster-snapshot.js';
import { decodeHelmReleases } from './decode-helm-release.js';
import { REQUIRED_KUBE_ACCESS } from '../planning/checks/kube-access-check.js';
import { describeReadError, isNotFound } from './read-error.js';

/** Reads only some checks need, switched on in clusters.yaml (`checks.helmReleases` needs `list` on Secrets). */
export interface KubeOptIn {
  helmReleases?: boolean;
  /** Ask the apiserver which of the job's permissions the bot has (SelfSubjectAccessReview). */
  askAccess?: boolean;
  /**
   * 'status': only what the status card shows (nodes, Karpenter NodePools); the workload areas are left empty,
   * not read, so a cluster's card costs two lists instead of sixteen. 'fleet': nodes alone (a `status --all` row
   * counts kubelets from the nodes and shows no NodePools): one list, one connection.
   */
  scope?: 'status' | 'fleet';
}

/** The workload areas a card or a row does not read: empty, and not reported as failed. */
function scopedOut(): Omit<KubeSnapshot, 'nodes' | 'karpenter'> {
  const notRead = readOk<KubeObject[]>([]);
  return { pods: notRead, deployments: notRead, statefulsets: notRead, pdbs: notRead, pvcs: notRead, hpas: notRead };
}

/**
 * The Kubernetes half of a snapshot: nodes, pods, workloads, PDBs, PVCs, HPAs and Karpenter's objects, listed in
 * parallel once the node list shows the API answers (unreachable: every area says so once). Each list fails on its
 * own; Karpenter's CRDs answering 404 means "no Karpenter here", not an error.
 */
export async function collectKube(connect: () => Promise<KubePort>, cluster: string, optIn: KubeOptIn = {}): Promise<KubeSnapshot> {
  const allFailed = (error: string): KubeSnapshot => {
    const failed = readFailed<never>(error);
    // A card or a row reads only the nodes (and the card Karpenter's NodePools): only those are "not read". The
    // workload areas were never asked for, and naming them would tell the user of reads that did not happen.
    if (optIn.scope === 'status' || optIn.scope === 'fleet') return { ...scopedOut(), nodes: failed, karpenter: optIn.scope === 'fleet' ? readOk(undefined) : failed };
    return {
      nodes: failed, pods: failed, deployments: failed, statefulsets: failed, pdbs: failed, pvcs: failed, hpas: failed, karpenter: failed,
      replicasets: failed, daemonsets: failed, services: failed, webhooks: failed, eniConfigs: failed,
      ...(optIn.helmReleases ? { helmReleases: failed } : {}),
    };
  };
  let kube: KubePort;
  try {
    kube = await connect();
  } catch (error) {
    return allFailed(describeReadError(`Connecting to the Kubernetes API of ${cluster}`, error));
  }
  const list = async (resource: KubeResource): Promise<Read<KubeObject[]>> => {
    try {
      return readOk((await kube.list(resource)).items);
    } catch (error) {
      return readFailed(describeReadError(`Listing ${resource} of ${cluster}`, error));
    }
  };
  if (optIn.scope === 'status' || optIn.scope === 'fleet') {
    // Both lists at once (one round trip); an unreachable API or a refused token still says so once.
    const [nodes, karpenter] = await Promise.all([
      kube.list('nodes').then((list) => ({ ok: true as const, items: list.items }), (error: unknown) => ({ ok: false as const, error })),
      optIn.scope === 'fleet' ? Promise.resolve(readOk(undefined)) : collectKarpenter(kube, cluster, true),
    ]);
    if (!nodes.ok && nodes.error instanceof KubeApiError && (nodes.error.code === 0 || nodes.error.code === 401)) {
      return allFailed(describeReadError(`Reaching the Kubernetes API of ${cluster}`, nodes.error));
    }
    return {
      ...scopedOut(),
      nodes: nodes.ok ? readOk(nodes.items) : readFailed(describeReadError(`Listing nodes of ${cluster}`, nodes.error)),
      karpenter,
    };
  }
  // Nodes first: an unreachable API (code 0) or a refused token (401) fails every list alike, so say it once
  // instead of eight times; a 403 on nodes alone (RBAC) leaves the other lists worth trying.
  let nodes: Read<KubeObject[]>;
  try {
    nodes = readOk((await kube.list('nodes')).items);
  } catch (error) {
    if (error instanceof KubeApiError && (error.code === 0 || error.code === 401)) return allFailed(describeReadError(`Reaching the Kubernetes API of ${cluster}`, error));
    nodes = readFailed(describeReadError(`Listing nodes of ${cluster}`, error));
  }
  const [pods, deployments, statefulsets, pdbs, pvcs, hpas, karpenter, replicasets, daemonsets, services, webhooks, eniConfigs, helmReleases, access] = await Promise.all([
    list('pods'),
    list('deployments'),
    list('statefulsets'),
    list('poddisruptionbudgets'),
    list('persistentvolumeclaims'),
    list('horizontalpodautoscalers'),
    collectKarpenter(kube, cluster),
    list('replicasets'),
    list('daemonsets'),
    list('services'),
    collectWebhooks(kube, cluster),
    optionalList(kube, 'eniconfigs', cluster),
    optIn.helmReleases ? collectHelmReleases(kube, cluster) : Promise.resolve(undefined),
    optIn.askAccess ? collectAccess(kube, cluster) : Promise.resolve(undefined),
  ]);
  return {
    nodes, pods, deployments, statefulsets, pdbs, pvcs, hpas, karpenter, replicasets, daemonsets, services, webhooks, eniConfigs,
    ...(helmReleases ? { helmReleases } : {}),
    ...(access ? { access } : {}),
  };
}

async function collectWebhooks(kube: KubePort, cluster: string): Promise<Read<KubeObject[]>> {
  try {
    const [validating, mutating] = await Promise.all([kube.list('validatingwebhookconfigurations'), kube.list('mutatingwebhookconfigurations')]);
    return readOk([
      ...validating.items.map((o) => ({ ...o, kind: 'ValidatingWebhookConfiguration' })),
      ...mutating.items.map((o) => ({ ...o, kind: 'MutatingWebhookConfiguration' })),
    ]);
  } catch (error) {
    return readFailed(describeReadError(`Listing admission webhook configurations of ${cluster}`, error));
  }
}

/** A CRD-backed list: 404 (the CRD is not installed) is an empty list, not an error. */
async function optionalList(kube: KubePort, resource: KubeResource, cluster: string): Promise<Read<KubeObject[]>> {
  try {
    return readOk((await kube.list(resource)).items);
  } catch (error) {
    if (isNotFound(error)) return readOk([]);
    return readFailed(describeReadError(`Listing ${resource} of ${cluster}`, error));
  }
}

/** Helm v3 release secrets (label owner=helm), decoded; needs `list` on Secrets, hence opt-in. */
async function collectHelmReleases(kube: KubePort, cluster: string): Promise<Read<HelmRelease[]>> {
  try {
    const secrets = await kube.list('secrets', { labelSelector: 'owner=helm' });
    const { releases, unreadable } = decodeHelmReleases(secrets.items);
    if (unreadable.length > 0 && releases.length === 0) return readFailed(`Decoding the Helm release secrets of ${cluster} failed: ${unreadable.slice(0, 3).join('; ')}`);
    return readOk(releases);
  } catch (error) {
    return readFailed(describeReadError(`Listing the Helm release secrets of ${cluster} (checks.helmReleases needs list on secrets)`, error));
  }
}

async function collectKarpenter(kube: KubePort, cluster: string, poolsOnly = false): Promise<Read<KarpenterObjects | undefined>> {
  const optional = async (resource: KubeResource): Promise<KubeObject[] | undefined> => {
    try {
      return (await kube.list(resource)).items;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  try {
    const [nodePools, nodeClaims, nodeClasses] = poolsOnly
      ? [await optional('nodepools'), [], []]
      : await Promise.all([optional('nodepools'), optional('nodeclaims'), optional('ec2nodeclasses')]);
    if (nodePools === undefined) return readOk(undefined);
    return readOk({ nodePools, nodeClaims: nodeClaims ?? [], nodeClasses: nodeClasses ?? [] });
  } catch (error) {
    return readFailed(describeReadError(`Listing Karpenter objects of ${cluster}`, error));
  }
}

/** The bot's own permissions on the cluster, one SelfSubjectAccessReview per permission the job uses. */
async function collectAccess(kube: KubePort, cluster: string): Promise<NonNullable<KubeSnapshot['access']>> {
  try {
    const answers = await Promise.all(
      REQUIRED_KUBE_ACCESS.map(async ({ verb, resource, subresource }) => ({ verb, resource, subresource, allowed: await kube.canI({ verb, resource, subresource }) })),
    );
    return readOk(answers);
  } catch (error) {
    return readFailed(describeReadError(`Asking the Kubernetes API of ${cluster} what the bot may do`, error));
  }
}
