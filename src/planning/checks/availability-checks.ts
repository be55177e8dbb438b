import type { KubeObject } from '../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot } from '../cluster-snapshot.js';
import { indexNodes, podRef, zoneOf } from '../compute-groups.js';
import { plural, type Finding } from '../../ports/finding.js';
import { checkSettingsOf, type PlanPolicy } from '../plan-policy.js';
import { upgradePath } from '../upgrade-path.js';
import { isReady, planActionOn, podCompute, workloadViews, type WorkloadView } from '../workloads/workload-index.js';
import { replacedNodes } from './workload-checks.js';
import { remedyOf } from './finding-codes.js';

/**
 * AVL001–AVL007 — what takes a workload down while the plan replaces its nodes, though nothing blocks the upgrade:
 * too few replicas, no PDB to pace the drain, every replica on one node or zone, no readiness probe, a PDB that
 * counts pods available the moment they are Ready (minReadySeconds 0), StatefulSet pods killed with no grace, and
 * pods that need the Docker socket new nodes no longer have. Only workloads with a pod on a node the plan replaces,
 * outside `checks.ignoreNamespaces`; each finding says what happens during this plan, node by node.
 */
export function checkAvailability(snapshot: ClusterSnapshot, target: string, policy: PlanPolicy): Finding[] {
  const path = upgradePath(snapshot, target);
  if (!path || !snapshot.kube.pods.ok) return [];
  const settings = checkSettingsOf(policy);
  const replaced = replacedNodes(snapshot, path.to);
  const computeOf = podCompute(snapshot);
  const { byName } = indexNodes(snapshot);
  const onReplaced = (pod: KubeObject) => replaced.has(pod.spec?.nodeName);
  const ignored = new Set(settings.ignoreNamespaces);

  // One Set per action, added to in place: copying the node list for every pod made a workload of n pods cost n²
  // (bench SCALE: plan of a 2,000-node cluster, 1,000 pods a Deployment). Several findings of one workload name the
  // same pods, so each list of pods is described once.
  const described = new WeakMap<KubeObject[], string>();
  const where = (pods: KubeObject[]): string => {
    const known = described.get(pods);
    if (known !== undefined) return known;
    const byAction = new Map<string, Set<string>>();
    for (const pod of pods) {
      const ref = computeOf(pod);
      const action = ref ? planActionOn(ref, policy) : 'the upgrade replaces';
      let nodes = byAction.get(action);
      if (!nodes) byAction.set(action, (nodes = new Set()));
      // EC2 private DNS names: the host part is what people recognise (ip-10-0-1-5).
      nodes.add(String(pod.spec.nodeName).replace(/\.[a-z0-9-]+\.compute\.internal$/, ''));
    }
    const text = [...byAction].map(([action, nodes]) => `on ${[...nodes].join(', ')}, which ${action}`).join('; ');
    described.set(pods, text);
    return text;
  };

  const findings: Finding[] = [];
  for (const w of workloadViews(snapshot)) {
    if (ignored.has(w.namespace)) continue;
    const moving = w.pods.filter(onReplaced);
    if (moving.length === 0) continue;
    const label = `${w.kind} ${w.namespace}/${w.name}`;
    const base = [w.ref, ...moving.map((pod) => `pod/${podRef(pod)}`)];
    const template = w.object.spec?.template?.spec ?? {};

    if (w.replicas < settings.replicaMinimum) {
      findings.push({
        code: 'AVL001',
        severity: 'warning',
        title: `${w.name} has ${plural(w.replicas, 'replica')} ${where(moving)}: it is unavailable until rescheduled (${label}, minimum ${settings.replicaMinimum})`,
        resources: base,
        remedy: `Scale it to ${settings.replicaMinimum} replicas for the upgrade: kubectl scale ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace} --replicas=${settings.replicaMinimum} (and spread them, see AVL003).`,
      });
    }
    if (w.replicas > 1 && w.pdbs.length === 0) {
      findings.push({
        code: 'AVL002',
        severity: 'warning',
        title: `${label} has ${plural(w.replicas, 'replica')} and no PodDisruptionBudget: its pods are ${where(moving)}, and the drain may evict ${moving.length === w.pods.length ? 'all of them' : `${moving.length} of them`} at once`,
        resources: base,
        remedy: `Add a PDB so drains take one pod at a time: kubectl create pdb ${w.name} -n ${w.namespace} --selector=${selectorText(w)} --max-unavailable=1`,
      });
    }
    findings.push(...spreadFinding(w, label, byName, where));
    const containers: Array<{ name: string; readinessProbe?: unknown }> = template.containers ?? [];
    if (containers.length > 0 && containers.every((c) => !c.readinessProbe)) {
      findings.push({
        code: 'AVL004',
        severity: 'warning',
        title: `${label} has no readinessProbe: its pods are ${where(moving)}, and once moved Services send traffic to the new pods before they can serve`,
        resources: base,
        remedy: `Add a readinessProbe to ${containers.map((c) => c.name).join(', ')} (kubectl explain deployment.spec.template.spec.containers.readinessProbe).`,
      });
    }
    if (w.pdbs.length > 0 && Number(w.object.spec?.minReadySeconds ?? 0) === 0) {
      findings.push({
        code: 'AVL005',
        severity: 'warning',
        title: `${label} has minReadySeconds 0 while PDB ${w.pdbs.map((p) => p.metadata.name).join(', ')} guards it: its pods are ${where(moving)}, and a new pod counts as available the moment it is Ready, so the drain may move on before it really serves`,
        resources: [...base, ...w.pdbs.map((p) => `pdb/${w.namespace}/${p.metadata.name}`)],
        remedy: `Set spec.minReadySeconds (e.g. 10–30) on ${w.name} so the PDB waits until new pods have stayed ready.`,
      });
    }
    if (w.kind === 'StatefulSet' && template.terminationGracePeriodSeconds === 0) {
      findings.push({
        code: 'AVL006',
        severity: 'warning',
        title: `${label} has terminationGracePeriodSeconds 0: its pods ${where(moving)} are killed without a chance to flush or hand over their data`,
        resources: base,
        remedy: `Give it a grace period (e.g. 30 s or what its shutdown needs): kubectl patch statefulset ${w.name} -n ${w.namespace} -p '{"spec":{"template":{"spec":{"terminationGracePeriodSeconds":30}}}}'`,
      });
    }
  }
  findings.push(...dockerSocketFindings(snapshot, onReplaced, ignored, where));
  return findings;
}

function selectorText(w: WorkloadView): string {
  const labels: Record<string, string> = w.object.spec?.selector?.matchLabels ?? {};
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',') || `app=${w.name}`;
}

/** AVL003: every ready replica on one node (or, with more nodes, in one zone). */
function spreadFinding(w: WorkloadView, label: string, byName: Map<string, KubeObject>, where: (pods: KubeObject[]) => string): Finding[] {
  const ready = w.pods.filter(isReady);
  if (w.replicas < 2 || ready.length < 2) return [];
  const nodes = [...new Set(ready.map((pod) => pod.spec?.nodeName as string))];
  const zones = [...new Set(ready.map((pod) => zoneOf(byName.get(pod.spec?.nodeName)) ?? 'unknown'))];
  const base = [w.ref, ...ready.map((pod) => `pod/${podRef(pod)}`)];
  const remedy = `Spread the replicas: add topologySpreadConstraints (topologyKey kubernetes.io/hostname and topology.kubernetes.io/zone, whenUnsatisfiable ScheduleAnyway) or pod anti-affinity to ${w.name}, then restart it.`;
  if (nodes.length === 1) {
    return [{ code: 'AVL003', severity: 'warning', title: `All ${ready.length} ready replicas of ${label} run on one node (${where(ready)}): replacing it takes them all down together`, resources: base, remedy }];
  }
  if (zones.length === 1 && zones[0] !== 'unknown') {
    return [{ code: 'AVL003', severity: 'warning', title: `All ${ready.length} ready replicas of ${label} run in one zone, ${zones[0]} (${where(ready)}): losing that zone's capacity during the rollout takes them all down`, resources: base, remedy }];
  }
  return [];
}

/** AVL007: hostPath /var/run/docker.sock (DaemonSet pods included): new AMIs run containerd only. */
function dockerSocketFindings(snapshot: ClusterSnapshot, onReplaced: (pod: KubeObject) => boolean, ignored: Set<string>, where: (pods: KubeObject[]) => string): Finding[] {
  const pods = valueOr(snapshot.kube.pods, []).filter(
    (pod) => !ignored.has(pod.metadata.namespace ?? 'default') && onReplaced(pod) && (pod.spec?.volumes ?? []).some((v: { hostPath?: { path?: string } }) => /^\/(var\/)?run\/docker\.sock$/.test(v.hostPath?.path ?? '')),
  );
  const byOwner = new Map<string, KubeObject[]>();
  for (const pod of pods) {
    const owner = pod.metadata.ownerReferences?.[0];
    const key = owner ? `${owner.kind.toLowerCase()}/${pod.metadata.namespace ?? 'default'}/${owner.name}` : `pod/${podRef(pod)}`;
    byOwner.set(key, [...(byOwner.get(key) ?? []), pod]);
  }
  return [...byOwner].map(([owner, owned]) => ({
    code: 'AVL007',
    severity: 'warning' as const,
    title: `${owner} mounts /var/run/docker.sock (${plural(owned.length, 'pod')} ${where(owned)}): the new nodes run containerd only, so these pods fail to start there`,
    resources: [owner, ...owned.map((pod) => `pod/${podRef(pod)}`)],
    remedy: remedyOf('AVL007'),
  }));
}
