import { describe, expect, it } from 'vitest';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { resourceGlobMatches, type Waiver } from '../../src/waivers/model/waiver-match.js';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { isBlocking } from '../../src/ports/finding.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { runChecks } from '../../src/planning/checks/run-checks.js';
import { planJson } from '../../src/report/json-output.js';
import { waiverExpiry } from '../../src/waivers/request/waiver-request-modal.js';
import { deployment, deploymentPod, healthySnapshot, NOW, pdb, withKube } from './check-snapshot-fixture.js';

/** Waivers: matching by code and resource glob, expiry on the snapshot's clock, clusters.yaml validation, JSON. */
const DAY = 24 * 3600_000;

function ordersBlocked() {
  let s = healthySnapshot();
  s = withKube(s, 'pods', [deploymentPod('orders', 'orders', 0, 'ip-10-0-1-1', { app: 'orders' })]);
  s = withKube(s, 'deployments', [deployment('orders', 'orders', 1)]);
  return withKube(s, 'pdbs', [pdb('orders', 'orders-pdb', { app: 'orders' }, { minAvailable: 1 }, 0)]);
}

function config(waivers: unknown[], extra: Record<string, unknown> = {}) {
  return parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0A'], requesters: ['U0REQ'], approvers: ['U0APP'], waivers, ...extra }] });
}

const slackWaiver = (overrides: Partial<Waiver> = {}): Waiver => ({
  id: 'w1', cluster: 'demo', code: 'K8S004', resource: 'deployment/orders/orders', reason: 'single writer by design',
  expiresAt: NOW + DAY, requestedBy: 'U0REQ', requestedAt: NOW - DAY, state: 'active', approvedBy: 'U0APP', approvedAt: NOW - DAY, source: 'slack', ...overrides,
});

describe('waivers', () => {
  it('a clusters.yaml waiver matching code and glob keeps the finding, marked waived, and unblocks the plan', () => {
    const cluster = config([{ code: 'K8S004', resource: 'deployment/orders/*', reason: 'orders is single-writer by design', expires: '2025-07-01', approvedBy: 'U0APP' }]).clusters[0];
    const plan = buildPlan(ordersBlocked(), '1.31', policyFromConfig(cluster));
    const finding = plan.findings.find((f) => f.code === 'K8S004')!;
    expect(finding.severity).toBe('error');
    expect(finding.waived).toEqual({ by: 'U0APP', reason: 'orders is single-writer by design', until: '2025-07-02T00:00:00.000Z', waiverId: 'clusters.yaml#1' });
    expect(plan.blocking).toBe(false);
    const json = planJson(plan) as any;
    expect(json.findings.find((f: any) => f.code === 'K8S004').waived).toEqual({ by: 'U0APP', reason: 'orders is single-writer by design', until: '2025-07-02T00:00:00.000Z' });
    expect(json.blocking).toBe(false);
  });

  it('an expired, pending, revoked or non-matching waiver waives nothing', () => {
    const cluster = config([]).clusters[0];
    const blocked = (w: Waiver) => isBlocking(runChecks(ordersBlocked(), '1.31', policyFromConfig(cluster, [w])));
    expect(blocked(slackWaiver())).toBe(false);
    expect(blocked(slackWaiver({ expiresAt: NOW }))).toBe(true);
    expect(blocked(slackWaiver({ state: 'pending', approvedBy: undefined }))).toBe(true);
    expect(blocked(slackWaiver({ state: 'revoked' }))).toBe(true);
    expect(blocked(slackWaiver({ code: 'K8S003' }))).toBe(true);
    expect(blocked(slackWaiver({ resource: 'deployment/shop/*' }))).toBe(true);
    expect(blocked(slackWaiver({ cluster: 'other' }))).toBe(true);
  });

  it('globs: * stays within a path segment, ** crosses them', () => {
    expect(resourceGlobMatches('deployment/orders/*', 'deployment/orders/orders')).toBe(true);
    expect(resourceGlobMatches('deployment/*', 'deployment/orders/orders')).toBe(false);
    expect(resourceGlobMatches('deployment/**', 'deployment/orders/orders')).toBe(true);
    expect(resourceGlobMatches('*', 'cluster/demo')).toBe(false);
    expect(resourceGlobMatches('**', 'cluster/demo')).toBe(true);
  });

  it('clusters.yaml refuses a waiver without a reason, a date or an approver, naming the field', () => {
    expect(() => config([{ code: 'K8S004', resource: 'x', reason: 'short', expires: '2025-07-01', approvedBy: 'U0APP' }])).toThrow(/clusters\[0\] \(demo\)\.waivers\[0\]\.reason: must say why, in at least 10 characters/);
    expect(() => config([{ code: 'K8S004', resource: 'x', reason: 'long enough reason', expires: 'next week', approvedBy: 'U0APP' }])).toThrow(/waivers\[0\]\.expires: must be a date like 2026-12-31/);
    expect(() => config([{ code: 'k8s4', resource: 'x', reason: 'long enough reason', expires: '2025-07-01', approvedBy: 'U0APP' }])).toThrow(/waivers\[0\]\.code: must be a finding code like K8S004/);
    expect(() => config([{ code: 'K8S004', resource: 'x', reason: 'long enough reason', expires: '2025-07-01' }])).toThrow(/waivers\[0\]\.approvedBy/);
  });

  it('per-check settings are validated and merged over defaults', () => {
    expect(config([], { checks: { replicaMinimum: 3 } }).clusters[0].checks).toMatchObject({ replicaMinimum: 3, ignoreNamespaces: ['kube-system'], helmReleases: false });
    expect(() => config([], { checks: { replicaMinimum: 0 } })).toThrow(/checks\.replicaMinimum/);
    expect(() => config([], { checks: { ignoreNamespaces: ['Bad_NS'] } })).toThrow(/checks\.ignoreNamespaces\[0\]: must be a Kubernetes namespace name/);
    expect(() => config([], { checks: { helmRelease: true } })).toThrow(/checks/);
  });

  it('the Slack modal allows at most 90 days, ending at the end of the chosen day', () => {
    const now = Date.parse('2025-06-15T12:00:00Z');
    expect(waiverExpiry('2025-06-15', now)).toEqual({ expiresAt: Date.parse('2025-06-16T00:00:00Z') });
    expect(waiverExpiry('2025-06-14', now)).toEqual({ problem: expect.stringMatching(/already have ended/) });
    expect(waiverExpiry('2025-09-12', now)).toEqual({ expiresAt: Date.parse('2025-09-13T00:00:00Z') });
    expect(waiverExpiry('2025-09-13', now)).toEqual({ problem: 'A waiver lasts at most 90 days: choose 2025-09-12 or earlier.' });
    expect(waiverExpiry(undefined, now)).toEqual({ problem: 'Choose the date the waiver ends.' });
  });
});
