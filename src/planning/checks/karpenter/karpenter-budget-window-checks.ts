import { Cron } from 'croner';
import { describeWindow, windowIntervals } from '../../../domain/maintenance-window.js';
import { valueOr, type ClusterSnapshot } from '../../cluster-snapshot.js';
import type { Finding } from '../../../ports/finding.js';
import type { PlanPolicy } from '../../plan-policy.js';
import { karpenterDurationMs } from './karpenter-pitfall-checks.js';

/**
 * KAR010 — a NodePool budget schedule that closes (nodes: "0" for drift) during the cluster's maintenance window:
 * outside the job, or once the job restores the original budgets, drift stops right when the team planned to
 * upgrade. Karpenter evaluates budget schedules as cron in UTC with a `duration`; KAR001 reports scheduled zero
 * budgets in general, this one only their overlap with clusters.yaml's `maintenanceWindow` over the next 7 days.
 */
const HORIZON_DAYS = 7;

export function checkBudgetWindows(snapshot: ClusterSnapshot, _target: string, policy: PlanPolicy): Finding[] {
  const window = policy.maintenanceWindow;
  const karpenter = valueOr(snapshot.kube.karpenter, undefined);
  if (!window || !karpenter) return [];
  const windows = windowIntervals(window, snapshot.readAt, HORIZON_DAYS);
  const findings: Finding[] = [];
  for (const pool of karpenter.nodePools) {
    const budgets: Array<{ nodes?: string; schedule?: string; duration?: string; reasons?: string[] }> = pool.spec?.disruption?.budgets ?? [];
    for (const budget of budgets) {
      if (!budget.schedule || !/^0+%?$/.test(String(budget.nodes ?? '').trim())) continue;
      if (budget.reasons && !budget.reasons.includes('Drifted')) continue;
      const duration = karpenterDurationMs(budget.duration);
      if (!duration) continue;
      let cron: Cron;
      try {
        cron = new Cron(budget.schedule, { timezone: 'UTC', paused: true });
      } catch {
        continue; // Karpenter's own validation rejects such a budget; nothing to say about its timing.
      }
      const overlaps = windows.filter(([open, close]) => {
        for (let run = cron.nextRun(new Date(open - duration)); run && run.getTime() < close; run = cron.nextRun(run)) {
          if (run.getTime() + duration > open) return true;
        }
        return false;
      });
      if (overlaps.length === 0) continue;
      const first = new Date(overlaps[0][0]).toISOString().slice(0, 16).replace('T', ' ');
      findings.push({
        code: 'KAR010',
        severity: 'warning',
        title: `NodePool ${pool.metadata.name}'s budget "${budget.schedule}" for ${budget.duration} allows 0 drift disruptions during the maintenance window (${describeWindow(window)}; first on ${first} UTC): nodes will not be replaced then`,
        resources: [`nodepool/${pool.metadata.name}`],
        remedy: `Move the schedule out of the window, or rely on the job's upgradeBudget (it replaces the budgets while it drives the drift and restores them after); by hand, patch the NodePool's budgets for the upgrade.`,
      });
    }
  }
  return findings;
}
