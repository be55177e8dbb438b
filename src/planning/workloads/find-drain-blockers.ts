import type { KubeObject } from '../../ports/kube-port.js';
import { matchesSelector } from '../label-selector.js';

/**
 * Which pods and PodDisruptionBudgets keep a drain from finishing, and whether a safe remedy exists. Pure: given the
 * pods on the nodes being drained, the PDBs, and the workloads, it names each blocked pod with the PDB that
 * protects it; when a Deployment is protected by a PDB whose minAvailable equals its replica count (the workshop's
 * `orders` with `minAvailable: 1` and 1 replica), scaling it one up lets the drain proceed without Force.
 */
export interface DrainBlocker {
  pod: string; // namespace/name
  node: string;
  pdb: string; // namespace/name
  disruptionsAllowed: number;
  /** The Deployment that owns the pod, when there is one. */
  deployment?: string;
}

export interface DrainRemedy {
  label: string;
  namespace: string;
  deployment: string;
  replicas: number;
}

const name = (object: KubeObject) => `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;

/** The Deployment behind a pod (pod → ReplicaSet → Deployment), by owner references. */
export function deploymentOf(pod: KubeObject, replicaSets: KubeObject[]): string | undefined {
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.kind === 'ReplicaSet');
  if (!owner) return undefined;
  const rs = replicaSets.find((candidate) => candidate.metadata.name === owner.name && candidate.metadata.namespace === pod.metadata.namespace);
  const deployment = rs?.metadata.ownerReferences?.find((ref) => ref.kind === 'Deployment');
  return deployment ? `${pod.metadata.namespace ?? 'default'}/${deployment.name}` : undefined;
}

export function findDrainBlockers(input: { pods: KubeObject[]; pdbs: KubeObject[]; replicaSets: KubeObject[]; nodes: string[] }): DrainBlocker[] {
  const nodes = new Set(input.nodes);
  const blockers: DrainBlocker[] = [];
  for (const pod of input.pods) {
    const node = pod.spec?.nodeName as string | undefined;
    if (!node || !nodes.has(node) || pod.metadata.deletionTimestamp) continue;
    // DaemonSet pods are not evicted by a drain, so they never block one.
    if (pod.metadata.ownerReferences?.some((ref) => ref.kind === 'DaemonSet')) continue;
    for (const pdb of input.pdbs) {
      if (pdb.metadata.namespace !== pod.metadata.namespace) continue;
      if (!matchesSelector(pdb.spec?.selector, pod.metadata.labels)) continue;
      const allowed = Number(pdb.status?.disruptionsAllowed ?? 0);
      if (allowed > 0) continue;
      blockers.push({ pod: name(pod), node, pdb: name(pdb), disruptionsAllowed: allowed, deployment: deploymentOf(pod, input.replicaSets) });
    }
  }
  return blockers;
}

/**
 * The safe remedy for a single blocking Deployment whose PDB demands every replica (integer minAvailable equal to
 * the replica count): one more replica. Anything else (percentages, maxUnavailable: 0, several such workloads) is
 * left to people, who get the details and Force. A blocker that clears by itself — a PDB whose minAvailable is below
 * its Deployment's replicas, at 0 disruptions only while a replacement pod becomes Ready, as during the drain itself —
 * does not stand in the way of the remedy for the one that never will; it stays among the details.
 */
export function safeRemedy(blockers: DrainBlocker[], deployments: KubeObject[], pdbs: KubeObject[]): DrainRemedy | undefined {
  const deploymentOfBlocker = (blocker: DrainBlocker) => {
    const [namespace, deploymentName] = (blocker.deployment ?? '').split('/');
    return deployments.find((d) => d.metadata.namespace === namespace && d.metadata.name === deploymentName);
  };
  const minAvailableOf = (blocker: DrainBlocker) => pdbs.find((p) => name(p) === blocker.pdb)?.spec?.minAvailable;
  const clearsByItself = (blocker: DrainBlocker) => {
    const minAvailable = minAvailableOf(blocker);
    const deployment = deploymentOfBlocker(blocker);
    return deployment !== undefined && typeof minAvailable === 'number' && minAvailable < Number(deployment.spec?.replicas ?? 1);
  };
  const lasting = blockers.filter((blocker) => !clearsByItself(blocker));
  const targets = [...new Set(lasting.map((b) => b.deployment))];
  if (targets.length !== 1 || !targets[0]) return undefined;
  // A lasting blocker with its Deployment and an integer minAvailable demands every replica (minAvailable ≥ replicas).
  const deployment = deploymentOfBlocker(lasting[0]);
  const minAvailable = minAvailableOf(lasting[0]);
  if (!deployment || typeof minAvailable !== 'number') return undefined;
  const wanted = minAvailable + 1;
  const [namespace, deploymentName] = targets[0].split('/');
  return { label: `Scale ${deploymentName} to ${wanted} replicas`, namespace, deployment: deploymentName, replicas: wanted };
}

export function describeBlocker(blocker: DrainBlocker): string {
  return `pod ${blocker.pod} on ${blocker.node} is protected by PDB ${blocker.pdb} (${blocker.disruptionsAllowed} disruptions allowed)`;
}
