import type { Update } from '@aws-sdk/client-eks';
import { formatMinor, minorDistance, parseMinor } from '../domain/minor-version.js';
import type { InsightInfo } from './cluster-snapshot.js';
import { resourceFromUri } from './checks/insight-checks.js';
import { versionParamOf } from './deciders/decide-control-plane-action.js';
import type { PreflightFinding } from './checks/preflight-checks.js';

/**
 * The rollback preflight (issue 10): whether EKS would take the control plane of a cluster back one minor now, and
 * what stands in the way, as findings with stable codes RBK001–RBK006 (docs/finding-codes.md). Pure.
 * EKS allows a rollback within 7 days of an in-place upgrade, one minor back, from an ACTIVE cluster with no update
 * in flight; its ROLLBACK_READINESS insights say what would break (kubelets or add-ons newer than N-1), and an
 * ERROR insight blocks unless the request carries `force`. Only those insight errors may be forced: the others are
 * EKS's own refusals.
 */
export const ROLLBACK_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** "2026-12-08 14:05 UTC". */
export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export interface RollbackWindow {
  /** The in-place version update that brought the cluster to its current version. */
  updateId: string;
  /** Its version: the cluster's current minor. */
  version: string;
  /** When EKS reports the update (DescribeUpdate createdAt; the SDK's Update has no completion time). */
  upgradedAt: number;
  /** upgradedAt + 7 days: the last moment a rollback is accepted. */
  until: number;
}

/**
 * The rollback window of a cluster at `version`: from the newest successful in-place VersionUpdate to that version.
 * Undefined when there is none (the cluster was created at this version, or was rolled back to it).
 */
export function rollbackWindowOf(version: string, updates: readonly Update[]): RollbackWindow | undefined {
  const upgrades = updates
    .filter((update) => update.type === 'VersionUpdate' && update.status === 'Successful' && versionParamOf(update) === version && update.createdAt && update.id)
    .sort((a, b) => b.createdAt!.getTime() - a.createdAt!.getTime());
  const last = upgrades[0];
  if (!last) return undefined;
  // A rollback to `version` after that upgrade (from a later one) started a new life at this version: no window.
  const rolledBackTo = updates.some(
    (update) => update.type === 'VersionRollback' && update.status === 'Successful' && versionParamOf(update) === version && (update.createdAt?.getTime() ?? 0) > last.createdAt!.getTime(),
  );
  if (rolledBackTo) return undefined;
  const upgradedAt = last.createdAt!.getTime();
  return { updateId: last.id!, version, upgradedAt, until: upgradedAt + ROLLBACK_WINDOW_MS };
}

/** The minor before `version` ("1.31" → "1.30"), or undefined for a malformed version. */
export function previousMinor(version: string): string | undefined {
  const parsed = parseMinor(version);
  if (!parsed || parsed.minor === 0) return undefined;
  return formatMinor({ major: parsed.major, minor: parsed.minor - 1 });
}

export interface RollbackFacts {
  cluster: string;
  /** DescribeCluster status and version. */
  status: string;
  version: string;
  /** The minor the request goes back to (the button's, or current-1 for the command). */
  target: string;
  /** upgradePolicy.supportType. */
  supportType?: 'STANDARD' | 'EXTENDED';
  /** DescribeClusterVersions' support phase of the target minor. */
  targetSupport?: 'standard' | 'extended' | 'unsupported' | 'unknown';
  /** The cluster's recent updates, described (ListUpdates + DescribeUpdate). */
  updates: readonly Update[];
  /** The cluster's insights (all categories; only ROLLBACK_READINESS ones are read here). */
  insights: readonly InsightInfo[];
  now: number;
}

export interface RollbackPreflight {
  window?: RollbackWindow;
  findings: PreflightFinding[];
}

export function checkRollbackPreflight(facts: RollbackFacts): RollbackPreflight {
  const { cluster, version, target } = facts;
  const findings: PreflightFinding[] = [];
  const window = rollbackWindowOf(version, facts.updates);
  const ref = `cluster/${cluster}`;

  if (!window) {
    findings.push({
      code: 'RBK002',
      severity: 'error',
      title: `${cluster} was not upgraded in place to ${version} (EKS lists no successful version update to it), so EKS has nothing to roll back`,
      resources: [ref],
      remedy: 'a rollback only undoes an in-place upgrade; to go back further, build a new cluster at the older version and move the workloads',
      forceable: false,
    });
  } else if (facts.now > window.until) {
    findings.push({
      code: 'RBK001',
      severity: 'error',
      title: `The 7-day rollback window of ${cluster} closed on ${formatUtc(window.until)} (7 days after its upgrade to ${version}, update ${window.updateId}, on ${formatUtc(window.upgradedAt)})`,
      resources: [ref, `update/${window.updateId}`],
      remedy: 'EKS no longer rolls this cluster back; fix forward, or build a new cluster at the older version and move the workloads',
      forceable: false,
    });
  }

  const current = parseMinor(version);
  const wanted = parseMinor(target);
  if (current && wanted && minorDistance(wanted, current) !== 1) {
    findings.push({
      code: 'RBK003',
      severity: 'error',
      title:
        minorDistance(wanted, current) <= 0
          ? `${cluster} is at ${version}, which is not newer than ${target}: there is nothing to roll back to ${target}`
          : `${cluster} is at ${version}; ${target} is ${minorDistance(wanted, current)} minors back and EKS rolls back one minor only`,
      resources: [ref],
      remedy: `the only rollback EKS offers is to ${previousMinor(version) ?? 'the previous minor'}: \`/eks-upgrade rollback ${cluster}\``,
      forceable: false,
    });
  }

  const running = facts.updates.find((update) => update.status === 'InProgress');
  if (running) {
    findings.push({
      code: 'RBK004',
      severity: 'error',
      title: `An update of ${cluster} (${running.type ?? 'unknown type'} ${running.id}) is in progress`,
      resources: [ref, `update/${running.id}`],
      remedy: 'wait until it ends (`aws eks describe-update`), then ask for the rollback again',
      forceable: false,
    });
  } else if (facts.status !== 'ACTIVE') {
    findings.push({
      code: 'RBK004',
      severity: 'error',
      title: `${cluster} is ${facts.status}, not ACTIVE; EKS only rolls back an ACTIVE cluster`,
      resources: [ref],
      remedy: 'wait until the cluster is ACTIVE (`aws eks describe-cluster`), then ask again',
      forceable: false,
    });
  }

  if (facts.targetSupport === 'extended' && facts.supportType === 'STANDARD') {
    findings.push({
      code: 'RBK005',
      severity: 'error',
      title: `${target} is only in extended support, but ${cluster}'s upgrade policy is STANDARD: EKS refuses to roll back into extended support`,
      resources: [ref],
      remedy: `set the upgrade policy to EXTENDED first (\`aws eks update-cluster-config --name ${cluster} --upgrade-policy supportType=EXTENDED\`; extended support costs more), then ask again`,
      forceable: false,
    });
  }

  for (const insight of facts.insights) {
    if (insight.category !== 'ROLLBACK_READINESS' || insight.status === 'PASSING') continue;
    const resources = insight.resources
      .filter((resource) => resource.status !== 'PASSING')
      .map((resource) => (resource.uri ? resourceFromUri(resource.uri) : (resource.arn ?? '')))
      .filter(Boolean);
    // EKS refuses the rollback on ERROR and UNKNOWN readiness insights alike, unless the request carries force.
    const severity = insight.status === 'ERROR' || insight.status === 'UNKNOWN' ? 'error' : insight.status === 'WARNING' ? 'warning' : 'info';
    findings.push({
      code: 'RBK006',
      severity,
      title: `Rollback-readiness insight "${insight.name}" is ${insight.status}${insight.reason ? `: ${insight.reason}` : ''}`,
      resources: [...resources, `insight/${insight.id}`],
      remedy: insight.recommendation ?? `fix what it names (\`aws eks describe-insight --cluster-name ${cluster} --id ${insight.id}\`); the rollback job brings node groups back first, which clears kubelet ones`,
      // EKS refuses the rollback on an ERROR insight unless the request carries force: an approver may say so.
      forceable: severity === 'error',
    });
  }
  return { window, findings };
}

/** One sentence on where the rollback stands, for status: "rollback to 1.30 possible until …". */
export function rollbackLine(version: string, window: RollbackWindow | undefined, now: number): string | undefined {
  if (!window || now > window.until) return undefined;
  return `rollback to ${previousMinor(version) ?? 'the previous minor'} possible until ${formatUtc(window.until)}`;
}
