import type { KubeObject } from '../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { computeOfNode, indexNodes, isEvictablePod, kubeletOf, podRef, workloadOfPod, zoneOf, type ComputeRef } from '../compute-groups.js';
import { plural, type Finding } from '../../ports/finding.js';
import { matchesSelector } from '../label-selector.js';
import { kubeletMinor, minorsBetween, upgradePath } from '../upgrade-path.js';
import { remedyOf } from './finding-codes.js';

/**
 * K8S003–K8S006 — workloads that will stop or break the drain of nodes the upgrade replaces: PDBs that allow no
 * disruption (the single-replica-behind-minAvailable-1 case gets its own code and the exact fix, as the workshop's
 * orders-pdb), pods Karpenter will not touch (karpenter.sh/do-not-disrupt), and stateful pods whose zonal volumes
 * tie them to one AZ. A node "will be replaced" when it is not Fargate and its kubelet is older than the target.
 */
export function computeRefText(ref: ComputeRef): string {
  return `${ref.type === 'managed-nodegroup' ? 'nodegroup' : ref.type === 'karpenter' ? 'nodepool' : ref.type === 'fargate' ? 'fargateprofile' : 'selfmanaged'}/${ref.name}`;
}

/** Nodes the upgrade to `target` replaces: not Fargate, kubelet older than the target (or unknown). */
export function replacedNodes(snapshot: ClusterSnapshot, target: string): Set<string> {
  const replaced = new Set<string>();
  for (const node of valueOr(snapshot.kube.nodes, [])) {
    if (computeOfNode(node).type === 'fargate') continue;
    const minor = kubeletMinor(kubeletOf(node));
    if (!minor || minorsBetween(minor, target) > 0) replaced.add(node.metadata.name);
  }
  return replaced;
}

export function pdbAllows(pdb: KubeObject, matched: KubeObject[]): number {
  if (typeof pdb.status?.disruptionsAllowed === 'number') return pdb.status.disruptionsAllowed;
  const healthy = matched.filter((pod) => pod.status?.phase === 'Running').length;
  const { minAvailable, maxUnavailable } = pdb.spec ?? {};
  if (typeof minAvailable === 'number') return Math.max(healthy - minAvailable, 0);
  if (typeof maxUnavailable === 'number') return Math.max(Math.min(maxUnavailable, healthy), 0);
  return 1;
}

function replicasOf(snapshot: ClusterSnapshot, workload: { kind: string; namespace: string; name: string }): number | undefined {
  const list = workload.kind === 'Deployment' ? valueOr(snapshot.kube.deployments, []) : workload.kind === 'StatefulSet' ? valueOr(snapshot.kube.statefulsets, []) : [];
  const found = list.find((o) => o.metadata.name === workload.name && (o.metadata.namespace ?? 'default') === workload.namespace);
  return found ? Number(found.spec?.replicas ?? 1) : undefined;
}

export function checkWorkloads(snapshot: ClusterSnapshot, target: string): Finding[] {
  const path = upgradePath(snapshot, target);
  if (!path || !snapshot.kube.pods.ok) return [];
  const findings: Finding[] = [];
  const replaced = replacedNodes(snapshot, path.to);
  const { byName } = indexNodes(snapshot);
  const pods = snapshot.kube.pods.value.filter(isEvictablePod);
  const whereRuns = (pod: KubeObject) => (pod.spec?.nodeName && byName.get(pod.spec.nodeName) ? computeOfNode(byName.get(pod.spec.nodeName)!) : undefined);

  for (const pdb of valueOr(snapshot.kube.pdbs, [])) {
    const namespace = pdb.metadata.namespace ?? 'default';
    const matched = pods.filter((pod) => (pod.metadata.namespace ?? 'default') === namespace && matchesSelector(pdb.spec?.selector, pod.metadata.labels));
    if (matched.length === 0 || pdbAllows(pdb, matched) > 0) continue;
    const onReplaced = matched.filter((pod) => replaced.has(pod.spec?.nodeName));
    const computes = [...new Set(onReplaced.map((pod) => computeRefText(whereRuns(pod)!)))].sort();
    const severity = onReplaced.length > 0 ? 'error' : 'info';
    const pdbRef = `pdb/${namespace}/${pdb.metadata.name}`;
    const workloads = [...new Map(matched.map((pod) => workloadOfPod(pod)).filter((w) => !!w).map((w) => [`${w!.kind}/${w!.name}`, w!])).values()];
    const minAvailable = pdb.spec?.minAvailable;
    const single = workloads.length === 1 && typeof minAvailable === 'number' ? workloads[0] : undefined;
    const replicas = single ? replicasOf(snapshot, single) : undefined;
    const where = computes.length > 0 ? ` of ${computes.join(', ')}` : '';
    if (single && replicas !== undefined && replicas <= minAvailable) {
      const wanted = minAvailable + 1;
      findings.push({
        code: 'K8S004',
        severity,
        title: `${single.kind} ${namespace}/${single.name} has ${plural(replicas, 'replica')} and PDB ${pdb.metadata.name} requires minAvailable ${minAvailable}: its pod cannot be evicted, which blocks the drain${where}`,
        resources: [`${single.kind.toLowerCase()}/${namespace}/${single.name}`, pdbRef, ...matched.map((pod) => `pod/${podRef(pod)}`)],
        remedy: `Scale ${single.name} to ${wanted} replicas or it will block the drain: kubectl scale ${single.kind.toLowerCase()} ${single.name} -n ${namespace} --replicas=${wanted} (the job offers this on its gate card; Force evicts the pod anyway).`,
      });
    } else {
      findings.push({
        code: 'K8S003',
        severity,
        title: `PDB ${namespace}/${pdb.metadata.name} allows 0 disruptions right now (${plural(matched.length, 'pod')} covered)${severity === 'error' ? `: it will block the drain${where}` : ''}`,
        resources: [pdbRef, ...matched.map((pod) => `pod/${podRef(pod)}`)],
        remedy: remedyOf('K8S003'),
      });
    }
  }

  const pinned = pods.filter((pod) => pod.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true' && whereRuns(pod)?.type === 'karpenter' && replaced.has(pod.spec?.nodeName));
  const pinnedNodes = valueOr(snapshot.kube.nodes, []).filter((node) => node.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true' && replaced.has(node.metadata.name));
  if (pinned.length > 0 || pinnedNodes.length > 0) {
    findings.push({
      code: 'K8S005',
      severity: 'warning',
      title: `Karpenter will not drift ${plural(new Set([...pinned.map((pod) => pod.spec.nodeName), ...pinnedNodes.map((n) => n.metadata.name)]).size, 'node')} while karpenter.sh/do-not-disrupt is set (${plural(pinned.length, 'pod')}, ${plural(pinnedNodes.length, 'node')})`,
      resources: [...pinned.map((pod) => `pod/${podRef(pod)} on node/${pod.spec.nodeName}`), ...pinnedNodes.map((node) => `node/${node.metadata.name}`)],
      remedy: remedyOf('K8S005'),
    });
  }

  findings.push(...zonalVolumeFindings(snapshot, pods, replaced, byName, whereRuns));
  return findings;
}

/** K8S006: pods on replaced nodes whose PVCs are zonal (EBS): their replacement must be in the same AZ. */
function zonalVolumeFindings(
  snapshot: ClusterSnapshot,
  pods: KubeObject[],
  replaced: Set<string>,
  byName: Map<string, KubeObject>,
  whereRuns: (pod: KubeObject) => ComputeRef | undefined,
): Finding[] {
  const pvcs = new Map(valueOr(snapshot.kube.pvcs, []).map((pvc) => [`${pvc.metadata.namespace ?? 'default'}/${pvc.metadata.name}`, pvc]));
  const byWorkload = new Map<string, { label: string; zone: string; compute: string; claims: string[] }>();
  for (const pod of pods) {
    if (!replaced.has(pod.spec?.nodeName)) continue;
    const namespace = pod.metadata.namespace ?? 'default';
    const claims: string[] = (pod.spec?.volumes ?? []).map((v: any) => v.persistentVolumeClaim?.claimName).filter(Boolean);
    const zonal = claims.filter((claim) => {
      const pvc = pvcs.get(`${namespace}/${claim}`);
      const provisioner = `${pvc?.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'] ?? ''} ${pvc?.spec?.storageClassName ?? ''}`;
      return !/efs|nfs|fsx/i.test(provisioner);
    });
    if (zonal.length === 0) continue;
    const zone = zoneOf(byName.get(pod.spec.nodeName)) ?? 'its current zone';
    const workload = workloadOfPod(pod);
    const label = workload ? `${workload.kind.toLowerCase()}/${namespace}/${workload.name}` : `pod/${podRef(pod)}`;
    const compute = computeRefText(whereRuns(pod)!);
    const entry = byWorkload.get(`${label}|${zone}`) ?? { label, zone, compute, claims: [] };
    entry.claims.push(...zonal.map((claim) => `pvc/${namespace}/${claim}`));
    byWorkload.set(`${label}|${zone}`, entry);
  }
  return [...byWorkload.values()].map((entry) => ({
    code: 'K8S006',
    severity: 'warning',
    title: `${entry.label} keeps its data on zonal volumes in ${entry.zone}: when ${entry.compute} is replaced it can only restart on a node in ${entry.zone}`,
    resources: [entry.label, entry.compute, ...entry.claims],
    remedy: `Keep capacity in ${entry.zone} throughout (blue/green: give the new node group a subnet in ${entry.zone}; Karpenter: allow that zone in the NodePool), and expect a short outage unless it runs more than one replica.`,
  }));
}
