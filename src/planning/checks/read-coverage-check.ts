import { unreadAreas, type ClusterSnapshot } from '../cluster-snapshot.js';
import type { Finding } from '../../ports/finding.js';
import { remedyOf } from './finding-codes.js';

/**
 * EKS090 — what could not be read. A check that lacks its data stays silent rather than guessing, so the plan must
 * say which areas were missing and why; otherwise "no findings" would read as "all clear".
 */
export function checkReadCoverage(snapshot: ClusterSnapshot): Finding[] {
  const unread = unreadAreas(snapshot);
  if (unread.length === 0) return [];
  const byError = new Map<string, string[]>();
  for (const { area, error } of unread) byError.set(error, [...(byError.get(error) ?? []), area]);
  return [...byError].map(([error, areas]) => ({
    code: 'EKS090',
    severity: 'warning',
    title: `Could not read ${areas.join(', ')}: ${error}; the checks that need ${areas.length === 1 ? 'it' : 'them'} were skipped`,
    resources: areas.map((area) => `area/${area.replace(/\s+/g, '-').toLowerCase()}`),
    remedy: remedyOf('EKS090'),
  }));
}
