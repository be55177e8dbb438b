import type { ClusterSnapshot } from '../cluster-snapshot.js';
import { computeOfNode, indexNodes, kubeletOf, podRef, workloadOfPod } from '../compute-groups.js';
import { plural, type Finding } from '../../ports/finding.js';
import { kubeletMinor, minorsBetween, upgradePath } from '../upgrade-path.js';
import { remedyOf } from './finding-codes.js';

/**
 * FRG0xx — Fargate. A Fargate pod keeps the kubelet of the node it was given for life; only a new pod (a rollout
 * restart) lands on a node of the new version. FRG001 lists the workloads to restart after the control plane
 * moves; FRG002 the bare pods no controller will recreate.
 */
export interface FargateRestart {
  kind: string;
  namespace: string;
  name: string;
  pods: string[];
  kubelets: string[];
}

/** Workloads with pods on Fargate nodes older than `target`, and the bare pods among them. */
export function fargateRestarts(snapshot: ClusterSnapshot, target: string): { workloads: FargateRestart[]; barePods: string[] } {
  const { byName } = indexNodes(snapshot);
  const workloads = new Map<string, FargateRestart>();
  const barePods: string[] = [];
  for (const pod of snapshot.kube.pods.ok ? snapshot.kube.pods.value : []) {
    const node = byName.get(pod.spec?.nodeName ?? '');
    if (!node || computeOfNode(node).type !== 'fargate') continue;
    const minor = kubeletMinor(kubeletOf(node));
    if (minor && minorsBetween(minor, target) <= 0) continue;
    const workload = workloadOfPod(pod);
    if (!workload) {
      barePods.push(podRef(pod));
      continue;
    }
    const key = `${workload.kind}/${workload.namespace}/${workload.name}`;
    const entry = workloads.get(key) ?? { ...workload, pods: [], kubelets: [] };
    entry.pods.push(podRef(pod));
    if (!entry.kubelets.includes(kubeletOf(node))) entry.kubelets.push(kubeletOf(node));
    workloads.set(key, entry);
  }
  return { workloads: [...workloads.values()].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)), barePods };
}

export function checkFargate(snapshot: ClusterSnapshot, target: string): Finding[] {
  const path = upgradePath(snapshot, target);
  if (!path) return [];
  const { workloads, barePods } = fargateRestarts(snapshot, path.to);
  const findings: Finding[] = workloads.map((w) => ({
    code: 'FRG001',
    severity: 'warning',
    title: `${plural(w.pods.length, 'Fargate pod')} of ${w.kind.toLowerCase()} ${w.namespace}/${w.name} ${w.pods.length === 1 ? 'runs' : 'run'} kubelet ${w.kubelets.join(', ')} and ${w.pods.length === 1 ? 'needs' : 'need'} a restart once the control plane is at ${path.to}`,
    resources: [`${w.kind.toLowerCase()}/${w.namespace}/${w.name}`, ...w.pods.map((p) => `pod/${p}`)],
    remedy: `After the control-plane upgrade: kubectl rollout restart ${w.kind.toLowerCase()} ${w.name} -n ${w.namespace} (the job does this in the data-plane step and waits until it is Ready).`,
  }));
  if (barePods.length > 0) {
    findings.push({
      code: 'FRG002',
      severity: 'warning',
      title: `${plural(barePods.length, 'Fargate pod')} without a controller run an old kubelet; nothing will recreate them on a new node`,
      resources: barePods.map((p) => `pod/${p}`),
      remedy: remedyOf('FRG002'),
    });
  }
  return findings;
}
