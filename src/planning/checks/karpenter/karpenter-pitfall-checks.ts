import type { KubeObject } from '../../../ports/kube-port.js';
import { valueOr, type ClusterSnapshot } from '../../cluster-snapshot.js';
import { podRef } from '../../compute-groups.js';
import { findControllers, firstUnsupported } from '../../controller-versions.js';
import { plural, type Finding } from '../../../ports/finding.js';
import { matchesSelector } from '../../label-selector.js';
import { upgradePath } from '../../upgrade-path.js';
import { pdbAllows } from '../workload-checks.js';

/**
 * KAR007–KAR009 — Karpenter pitfalls of an upgrade, beyond budgets and AMIs (karpenter-checks.ts): a controller
 * older than the version that supports a minor on the way (Karpenter's compatibility matrix: provisioning may stop
 * once the control plane moves), NodePools without `terminationGracePeriod` whose drift would wait forever on
 * pods that cannot leave (karpenter.sh/do-not-disrupt, PDBs allowing nothing), and `expireAfter` that replaces nodes
 * within the next day whatever the budgets say (expiration is forceful in Karpenter v1).
 * An EC2NodeClass on an `@latest` alias drifting at the control-plane upgrade is KAR003.
 */
const EXPIRY_HORIZON_MS = 24 * 3600_000;

/** Karpenter's durations: "720h", "30m", "1h30m", "Never". */
export function karpenterDurationMs(text: string | undefined): number | undefined {
  if (!text || text === 'Never') return undefined;
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!match || (!match[1] && !match[2] && !match[3])) return undefined;
  return ((Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0)) * 60 + Number(match[3] ?? 0)) * 1000;
}

export function checkKarpenterPitfalls(snapshot: ClusterSnapshot, target: string): Finding[] {
  const path = upgradePath(snapshot, target);
  const karpenter = valueOr(snapshot.kube.karpenter, undefined);
  if (!path) return [];
  const findings: Finding[] = [];
  for (const { controller, found } of findControllers([{ kind: 'Deployment', objects: valueOr(snapshot.kube.deployments, []) }])) {
    if (controller.id !== 'karpenter' || !found.version) continue;
    const unsupported = firstUnsupported(controller, found.version, path.hops);
    if (!unsupported) continue;
    const ref = `deployment/${found.namespace}/${found.workload}`;
    findings.push({
      code: 'KAR007',
      severity: 'error',
      title: `Karpenter ${found.version} (${ref}) does not support Kubernetes ${unsupported.minor}: its compatibility matrix needs ${unsupported.minimum} or later`,
      resources: [ref],
      remedy: `Upgrade Karpenter to ${unsupported.minimum}+ before the control plane reaches ${unsupported.minor}: ${controller.upgrade.replace('<version>', unsupported.minimum)}.`,
    });
  }
  if (!karpenter) return findings;
  const nodes = valueOr(snapshot.kube.nodes, []);
  const pods = valueOr(snapshot.kube.pods, []);
  const pdbs = valueOr(snapshot.kube.pdbs, []);
  for (const pool of karpenter.nodePools) {
    const name = pool.metadata.name;
    const poolNodes = nodes.filter((n) => n.metadata.labels?.['karpenter.sh/nodepool'] === name);
    const onPool = new Set(poolNodes.map((n) => n.metadata.name));
    const poolPods = pods.filter((p) => onPool.has(p.spec?.nodeName));
    if (!pool.spec?.template?.spec?.terminationGracePeriod) findings.push(...stuckDrift(name, poolPods, pods, pdbs));
    const expireMs = karpenterDurationMs(pool.spec?.template?.spec?.expireAfter ?? '720h');
    if (expireMs === undefined) continue;
    const expiring = poolNodes.filter((n) => {
      const created = Date.parse(String(n.metadata.creationTimestamp ?? ''));
      return Number.isFinite(created) && created + expireMs - snapshot.readAt <= EXPIRY_HORIZON_MS;
    });
    if (expiring.length === 0) continue;
    findings.push({
      code: 'KAR009',
      severity: 'warning',
      title: `NodePool ${name}'s expireAfter ${pool.spec?.template?.spec?.expireAfter ?? '720h (default)'} replaces ${plural(expiring.length, 'node')} within the next 24 hours, whatever the disruption budgets say`,
      resources: [`nodepool/${name}`, ...expiring.map((n) => `node/${n.metadata.name}`)],
      remedy: `Expect those replacements during the upgrade, or lengthen expireAfter for the window (kubectl patch nodepool ${name} --type merge -p '{"spec":{"template":{"spec":{"expireAfter":"Never"}}}}') and restore it afterwards.`,
    });
  }
  return findings;
}

/** KAR008: pods on the pool that drift cannot move, with no terminationGracePeriod to end the wait. */
function stuckDrift(pool: string, poolPods: KubeObject[], allPods: KubeObject[], pdbs: KubeObject[]): Finding[] {
  const pinned = poolPods.filter((p) => p.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true');
  const blockingPdbs = pdbs.filter((pdb) => {
    const ns = pdb.metadata.namespace ?? 'default';
    const covered = poolPods.filter((p) => (p.metadata.namespace ?? 'default') === ns && matchesSelector(pdb.spec?.selector, p.metadata.labels));
    if (covered.length === 0) return false;
    const matched = allPods.filter((p) => (p.metadata.namespace ?? 'default') === ns && matchesSelector(pdb.spec?.selector, p.metadata.labels));
    return pdbAllows(pdb, matched) === 0;
  });
  if (pinned.length === 0 && blockingPdbs.length === 0) return [];
  const why = [
    ...(pinned.length > 0 ? [`${plural(pinned.length, 'pod')} with karpenter.sh/do-not-disrupt`] : []),
    ...(blockingPdbs.length > 0 ? [`PDB ${blockingPdbs.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).join(', ')} allowing 0 disruptions`] : []),
  ].join(' and ');
  return [
    {
      code: 'KAR008',
      severity: 'warning',
      title: `NodePool ${pool} has no terminationGracePeriod while ${why}: its drifted nodes would wait for them forever`,
      resources: [`nodepool/${pool}`, ...pinned.map((p) => `pod/${podRef(p)}`), ...blockingPdbs.map((p) => `pdb/${p.metadata.namespace}/${p.metadata.name}`)],
      remedy: `Set spec.template.spec.terminationGracePeriod on NodePool ${pool} (e.g. "24h": after that Karpenter drains anyway), or clear the blockers before the upgrade.`,
    },
  ];
}
