import type { KubeObject } from '../../ports/kube-port.js';
import { maxKubeletLag, SKEW_RULE_TEXT } from '../kubelet-skew.js';
import type { ClusterSnapshot } from '../cluster-snapshot.js';
import { computeOfNode, kubeletOf } from '../compute-groups.js';
import { plural, type Finding } from '../../ports/finding.js';
import { currentMinor, kubeletMinor, minorsBetween, nextMinorOf } from '../upgrade-path.js';

/**
 * K8S001/K8S002 — the kubelet version-skew policy (kubernetes.io/releases/version-skew-policy): a kubelet is never
 * newer than the apiserver and at most 3 minors older from 1.28 on (2 before). K8S001 is the cluster as it is;
 * K8S002 is the cluster right after the next control-plane upgrade, before any node has moved — which is the
 * moment the policy is tested hardest.
 */
interface Offender {
  node: KubeObject;
  minor: string;
  lag: number;
}

/** "nodegroup/blue-mng: 2 nodes at 1.23" lines, one per compute group and minor. */
function groupOffenders(offenders: Offender[]): string[] {
  const groups = new Map<string, number>();
  for (const { node, minor } of offenders) {
    const ref = computeOfNode(node);
    const key = `${ref.type === 'managed-nodegroup' ? 'nodegroup' : ref.type === 'karpenter' ? 'nodepool' : ref.type}/${ref.name}: kubelet ${minor}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  return [...groups].map(([key, count]) => `${key} (${plural(count, 'node')})`).sort();
}

function lagging(nodes: KubeObject[], apiMinor: string): { tooOld: Offender[]; atLimit: Offender[]; tooNew: Offender[] } {
  const maxLag = maxKubeletLag(apiMinor);
  const result = { tooOld: [] as Offender[], atLimit: [] as Offender[], tooNew: [] as Offender[] };
  for (const node of nodes) {
    const minor = kubeletMinor(kubeletOf(node));
    if (!minor) continue;
    const lag = minorsBetween(minor, apiMinor);
    if (lag < 0) result.tooNew.push({ node, minor, lag });
    else if (lag > maxLag) result.tooOld.push({ node, minor, lag });
    else if (lag === maxLag) result.atLimit.push({ node, minor, lag });
  }
  return result;
}

export function checkKubeletSkew(snapshot: ClusterSnapshot, _target: string): Finding[] {
  const minor = currentMinor(snapshot);
  if (!minor || !snapshot.kube.nodes.ok) return [];
  const nodes = snapshot.kube.nodes.value;
  const findings: Finding[] = [];

  const now = lagging(nodes, minor);
  if (now.tooNew.length > 0) {
    findings.push({
      code: 'K8S001',
      severity: 'error',
      title: `${plural(now.tooNew.length, 'node')} run a kubelet newer than the ${minor} control plane, which the skew policy never allows`,
      resources: groupOffenders(now.tooNew),
      remedy: 'Replace those nodes with nodes of the control plane\'s version (or older) before upgrading anything.',
    });
  }
  if (now.tooOld.length > 0) {
    findings.push({
      code: 'K8S001',
      severity: 'error',
      title: `${plural(now.tooOld.length, 'node')} are already more than ${maxKubeletLag(minor)} minors behind the ${minor} control plane (${SKEW_RULE_TEXT})`,
      resources: groupOffenders(now.tooOld),
      remedy: `Upgrade those nodes to ${minor} before the next control-plane upgrade.`,
    });
  }

  const next = nextMinorOf(minor);
  if (!next) return findings;
  const after = lagging(nodes, next);
  const maxLag = maxKubeletLag(next);
  if (after.tooOld.length > 0) {
    findings.push({
      code: 'K8S002',
      severity: 'error',
      title: `${plural(after.tooOld.length, 'node')} would be more than ${maxLag} minors behind once the control plane is at ${next} (${SKEW_RULE_TEXT})`,
      resources: groupOffenders(after.tooOld),
      remedy: `Upgrade those nodes to ${minor} first (or replace them), then upgrade the control plane.`,
    });
  }
  if (after.atLimit.length > 0) {
    findings.push({
      code: 'K8S002',
      severity: 'warning',
      title: `${plural(after.atLimit.length, 'node')} will be exactly ${maxLag} minors behind once the control plane is at ${next}, the most the skew policy allows`,
      resources: groupOffenders(after.atLimit),
      remedy: `Upgrade them in the ${next} hop: they cannot wait for the control-plane upgrade after it.`,
    });
  }
  return findings;
}
