import { describe, expect, it } from 'vitest';
import { checkInsights } from '../../src/planning/checks/insight-checks.js';
import { readOk } from '../../src/planning/cluster-snapshot.js';
import { planContext, insightsLine } from '../../src/planning/plan-context.js';
import { DEFAULT_POLICY } from '../../src/planning/plan-policy.js';
import { codes, healthySnapshot, insight, NOW } from './check-snapshot-fixture.js';

/** Which insight categories speak about the upgrade (INS002), which are information (INS004), and stale insights (INS005). */
describe('insight categories and freshness', () => {
  it('a ROLLBACK_READINESS ERROR (normal right after a hop) is no upgrade finding at all', () => {
    const s = healthySnapshot();
    s.insights = readOk([insight({ id: 'rb', name: 'Kubelet version compatibility for rollback', category: 'ROLLBACK_READINESS', kubernetesVersion: '1.29', status: 'ERROR' })]);
    expect(checkInsights(s, '1.31')).toEqual([]);
  });

  it('an UPGRADE_READINESS ERROR still blocks (INS002 error)', () => {
    const s = healthySnapshot();
    s.insights = readOk([insight({ status: 'ERROR', reason: 'Node kubelet versions are not compliant' })]);
    expect(codes(checkInsights(s, '1.31'))).toEqual(['INS002:error']);
  });

  it('a MISCONFIGURATION insight is information that names what to fix (INS004)', () => {
    const s = healthySnapshot();
    s.insights = readOk([insight({ id: 'mc', name: 'Amazon EKS Pod Identity agent', category: 'MISCONFIGURATION', status: 'ERROR', recommendation: 'Install the agent' })]);
    const [finding] = checkInsights(s, '1.31');
    expect(finding).toMatchObject({ code: 'INS004', severity: 'info' });
    expect(finding.title).toBe('Misconfiguration insight "Amazon EKS Pod Identity agent" is ERROR');
    expect(finding.remedy).toMatch(/^Install the agent \(aws eks describe-insight --cluster-name demo --id mc\); it does not block the upgrade\.$/);
  });

  it('INS005: insights older than the limit that could not be refreshed, with their age', () => {
    const s = healthySnapshot();
    s.insightsRefresh = { asOf: NOW - 30 * 3600_000, outcome: 'timed-out', note: 'the insights refresh did not finish within 30 s' };
    const [finding] = checkInsights(s, '1.31');
    expect(finding).toMatchObject({ code: 'INS005', severity: 'warning' });
    expect(finding.title).toBe('The upgrade insights could not be refreshed before this plan (30 h old, as of 2025-06-13 18:00 UTC): the insights refresh did not finish within 30 s');
    s.insightsRefresh = { asOf: NOW - 60_000, outcome: 'refreshed' };
    expect(checkInsights(s, '1.31')).toEqual([]);
  });

  it('every card says how old the insights are', () => {
    const s = healthySnapshot();
    s.insights = readOk([insight({ lastRefreshTime: NOW - 2 * 3600_000 }), insight({ id: 'b', lastRefreshTime: NOW - 3600_000 })]);
    expect(insightsLine(planContext(s, DEFAULT_POLICY))).toBe('insights as of 2025-06-14 22:00 UTC');
    s.insightsRefresh = { asOf: NOW - 60_000, outcome: 'refreshed' };
    expect(insightsLine(planContext(s, DEFAULT_POLICY))).toBe('insights as of 2025-06-14 23:59 UTC (refreshed for this plan)');
  });
});
