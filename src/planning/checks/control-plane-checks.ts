import { formatMinor, parseMinor } from '../../domain/minor-version.js';
import type { ClusterSnapshot, OfferedVersion } from '../cluster-snapshot.js';
import { plural, type Finding } from '../../ports/finding.js';
import { currentMinor, upgradePath } from '../upgrade-path.js';
import { remedyOf } from './finding-codes.js';

/**
 * EKS0xx — the cluster and its control plane: is it ACTIVE, is an update already running, does EKS offer every
 * minor on the way, is the cluster healthy, how much support is left.
 */
const DAY_MS = 24 * 3600_000;
/** Support ending this close is worth a warning on every plan and status card. */
export const SUPPORT_WARNING_DAYS = 60;

export function checkControlPlane(snapshot: ClusterSnapshot, target: string): Finding[] {
  if (!snapshot.cluster.ok) return [];
  const cluster = snapshot.cluster.value;
  const ref = `cluster/${cluster.name}`;
  const findings: Finding[] = [];

  const inProgress = snapshot.updates.ok ? snapshot.updates.value.filter((update) => update.status === 'InProgress') : [];
  if (inProgress.length > 0) {
    findings.push({
      code: 'EKS002',
      severity: 'error',
      title: `${plural(inProgress.length, 'update')} of ${cluster.name} in progress (${inProgress.map((u) => `${u.type}${u.version ? ` to ${u.version}` : ''}`).join(', ')})`,
      resources: inProgress.map((update) => `update/${update.id}`),
      remedy: `Wait until it ends (aws eks describe-update --name ${cluster.name} --update-id ${inProgress[0].id}); a control-plane update cannot be paused or stopped.`,
    });
  } else if (cluster.status !== 'ACTIVE') {
    findings.push({
      code: cluster.status === 'UPDATING' ? 'EKS002' : 'EKS001',
      severity: 'error',
      title: cluster.status === 'UPDATING' ? `${cluster.name} is UPDATING: another update is in progress` : `${cluster.name} is ${cluster.status}, not ACTIVE`,
      resources: [ref],
      remedy:
        cluster.status === 'UPDATING'
          ? `Wait until the cluster is ACTIVE again (aws eks list-updates --name ${cluster.name}).`
          : `EKS only upgrades ACTIVE clusters: resolve why it is ${cluster.status} (aws eks describe-cluster --name ${cluster.name}) first.`,
    });
  }

  for (const issue of cluster.healthIssues) {
    findings.push({
      code: 'EKS005',
      severity: 'error',
      title: `Cluster health issue ${issue.code}: ${issue.message}`,
      resources: [ref, ...issue.resourceIds],
      remedy: remedyOf('EKS005'),
    });
  }

  const path = upgradePath(snapshot, target);
  if (path && snapshot.versions.ok) {
    const offered = snapshot.versions.value.filter((v) => v.support !== 'unsupported').map((v) => v.version);
    const missing = path.hops.filter((hop) => !offered.includes(hop));
    if (missing.length > 0) {
      findings.push({
        code: 'EKS003',
        severity: 'error',
        title: `EKS does not offer ${missing.join(', ')} in ${snapshot.region} (offered: ${offered.join(', ') || 'none'})`,
        resources: [ref],
        remedy: `Choose a target up to ${offered.at(-1) ?? 'an offered version'}.`,
      });
    }
  }
  if (path && path.hops.length > 1) {
    findings.push({
      code: 'EKS004',
      severity: 'info',
      title: `${path.from} → ${path.to} takes ${path.hops.length} control-plane upgrades (${path.hops.join(', ')}): EKS moves one minor at a time`,
      resources: [ref],
      remedy: remedyOf('EKS004'),
    });
  }

  findings.push(...checkSupport(snapshot, target));
  return findings;
}

function findVersion(snapshot: ClusterSnapshot, minor: string | undefined): OfferedVersion | undefined {
  if (!minor || !snapshot.versions.ok) return undefined;
  return snapshot.versions.value.find((v) => v.version === minor);
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** EKS006 for the current version (extended support costs 6×; a STANDARD policy auto-upgrades), EKS007 for the target. */
function checkSupport(snapshot: ClusterSnapshot, target: string): Finding[] {
  const cluster = snapshot.cluster.ok ? snapshot.cluster.value : undefined;
  const minor = currentMinor(snapshot);
  const current = findVersion(snapshot, minor);
  if (!cluster || !current) return [];
  const findings: Finding[] = [];
  const now = snapshot.readAt;
  const ref = `cluster/${cluster.name}`;
  if (current.support === 'extended' && current.endOfExtendedSupport) {
    const days = Math.ceil((current.endOfExtendedSupport - now) / DAY_MS);
    findings.push({
      code: 'EKS006',
      severity: 'warning',
      title: `${minor} is in extended support (billed at $0.60 instead of $0.10 per cluster-hour) until ${isoDay(current.endOfExtendedSupport)}, ${plural(Math.max(days, 0), 'day')} left; then EKS upgrades the cluster itself`,
      resources: [ref],
      remedy: `Upgrade before ${isoDay(current.endOfExtendedSupport)}.`,
    });
  } else if (current.support === 'standard' && current.endOfStandardSupport) {
    const days = Math.ceil((current.endOfStandardSupport - now) / DAY_MS);
    if (days <= SUPPORT_WARNING_DAYS) {
      const then =
        cluster.supportType === 'STANDARD'
          ? 'then EKS upgrades the cluster itself (upgrade policy STANDARD)'
          : 'then extended support starts, billed at $0.60 instead of $0.10 per cluster-hour';
      findings.push({
        code: 'EKS006',
        severity: 'warning',
        title: `Standard support for ${minor} ends ${isoDay(current.endOfStandardSupport)} (${plural(Math.max(days, 0), 'day')} left); ${then}`,
        resources: [ref],
        remedy: `Upgrade before ${isoDay(current.endOfStandardSupport)}.`,
      });
    }
  }
  const targetVersion = findVersion(snapshot, formatMinor(parseMinor(target) ?? { major: 0, minor: 0 }));
  if (targetVersion?.support === 'extended') {
    findings.push({
      code: 'EKS007',
      severity: 'info',
      title: `The target ${target} is itself in extended support${targetVersion.endOfExtendedSupport ? ` (until ${isoDay(targetVersion.endOfExtendedSupport)})` : ''}`,
      resources: [ref],
      remedy: remedyOf('EKS007'),
    });
  }
  return findings;
}
