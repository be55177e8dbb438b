import type { Update } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../commands/routing/parse-command.js';
import type { InsightInfo } from '../../src/planning/cluster-snapshot.js';
import { jobSteps } from '../../src/planning/planner/job-steps.js';
import { decideAddonRollback } from '../../src/planning/deciders/plan-addon-update.js';
import { checkRollbackPreflight, previousMinor, ROLLBACK_WINDOW_MS, rollbackLine, rollbackWindowOf, type RollbackFacts } from '../../src/planning/rollback-preflight.js';

/** The rollback preflight (issue 10) as pure functions: the window, each RBK code, the job's order, the add-on rule. */
const UPGRADED_AT = Date.parse('2026-11-20T10:00:00Z');
const upgrade: Update = { id: 'u-131', type: 'VersionUpdate', status: 'Successful', params: [{ type: 'Version', value: '1.31' }], createdAt: new Date(UPGRADED_AT) };
const healthy: RollbackFacts = {
  cluster: 'demo',
  status: 'ACTIVE',
  version: '1.31',
  target: '1.30',
  supportType: 'STANDARD',
  targetSupport: 'standard',
  updates: [upgrade],
  insights: [],
  now: UPGRADED_AT + 2 * 24 * 3600_000,
};
const codes = (facts: Partial<RollbackFacts>) => checkRollbackPreflight({ ...healthy, ...facts }).findings.map((f) => `${f.code}:${f.severity}${f.forceable ? ':forceable' : ''}`);

const insight = (status: InsightInfo['status'], category = 'ROLLBACK_READINESS'): InsightInfo => ({
  id: `i-${status}`,
  name: 'Kubelet version skew',
  category,
  status,
  reason: 'nodes newer than 1.30',
  resources: [{ uri: '/api/v1/nodes/ip-10-0-1-1', status }, { uri: '/api/v1/nodes/ip-10-0-1-2', status: 'PASSING' }],
  deprecations: [],
});

describe('the rollback window', () => {
  it('runs 7 days from the newest successful in-place VersionUpdate to the current version', () => {
    const older: Update = { ...upgrade, id: 'u-old', createdAt: new Date(UPGRADED_AT - 30 * 24 * 3600_000) };
    expect(rollbackWindowOf('1.31', [older, upgrade])).toEqual({ updateId: 'u-131', version: '1.31', upgradedAt: UPGRADED_AT, until: UPGRADED_AT + ROLLBACK_WINDOW_MS });
  });

  it('is absent when the cluster was created at its version, the update failed, or it was rolled back to it since', () => {
    expect(rollbackWindowOf('1.31', [])).toBeUndefined();
    expect(rollbackWindowOf('1.31', [{ ...upgrade, status: 'Failed' }])).toBeUndefined();
    const rolledBack: Update = { id: 'r', type: 'VersionRollback', status: 'Successful', params: [{ type: 'Version', value: '1.31' }], createdAt: new Date(UPGRADED_AT + 1000) };
    expect(rollbackWindowOf('1.31', [upgrade, rolledBack])).toBeUndefined();
  });

  it('status says until when, and nothing once it has closed', () => {
    const window = rollbackWindowOf('1.31', [upgrade]);
    expect(rollbackLine('1.31', window, healthy.now)).toBe('rollback to 1.30 possible until 2026-11-27 10:00 UTC');
    expect(rollbackLine('1.31', window, UPGRADED_AT + ROLLBACK_WINDOW_MS + 1)).toBeUndefined();
    expect(previousMinor('1.31')).toBe('1.30');
    expect(previousMinor('nope')).toBeUndefined();
  });
});

describe('the rollback preflight codes', () => {
  it('finds nothing on a cluster upgraded in place two days ago', () => {
    expect(codes({})).toEqual([]);
  });

  it('RBK001 names the date the window closed; RBK002 a cluster never upgraded in place', () => {
    const closed = checkRollbackPreflight({ ...healthy, now: UPGRADED_AT + ROLLBACK_WINDOW_MS + 60_000 }).findings;
    expect(closed.map((f) => f.code)).toEqual(['RBK001']);
    expect(closed[0].title).toBe('The 7-day rollback window of demo closed on 2026-11-27 10:00 UTC (7 days after its upgrade to 1.31, update u-131, on 2026-11-20 10:00 UTC)');
    expect(codes({ updates: [] })).toEqual(['RBK002:error']);
  });

  it('RBK003 for a target that is not one minor back, RBK004 for a busy or not ACTIVE cluster, RBK005 for extended support under STANDARD', () => {
    expect(codes({ target: '1.29' })).toEqual(['RBK003:error']);
    expect(codes({ target: '1.31' })).toEqual(['RBK003:error']);
    expect(codes({ status: 'UPDATING', updates: [upgrade, { id: 'x', type: 'LoggingUpdate', status: 'InProgress' }] })).toEqual(['RBK004:error']);
    expect(codes({ status: 'FAILED' })).toEqual(['RBK004:error']);
    expect(codes({ targetSupport: 'extended' })).toEqual(['RBK005:error']);
    expect(codes({ targetSupport: 'extended', supportType: 'EXTENDED' })).toEqual([]);
  });

  it('RBK006 for each non-passing rollback-readiness insight, with its failing resources; ERROR and UNKNOWN may be forced', () => {
    const findings = checkRollbackPreflight({ ...healthy, insights: [insight('ERROR'), insight('PASSING'), insight('ERROR', 'UPGRADE_READINESS')] }).findings;
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ code: 'RBK006', severity: 'error', forceable: true, resources: ['node/ip-10-0-1-1', 'insight/i-ERROR'] });
    expect(codes({ insights: [insight('UNKNOWN')] })).toEqual(['RBK006:error:forceable']);
    expect(codes({ insights: [insight('WARNING')] })).toEqual(['RBK006:warning']);
  });
});

describe('the rollback job and its add-on rule', () => {
  it('runs the data plane and the add-ons first, then the gate and the control plane, then Fargate and verify', () => {
    const { hops, steps } = jobSteps({ cluster: 'demo', from: '1.31', to: '1.30', direction: 'rollback' });
    expect(hops).toEqual(['1.30']);
    expect(steps.map((step) => step.kind)).toEqual(['preflight', 'managed-nodegroups', 'karpenter', 'self-managed', 'addons', 'gate', 'control-plane', 'fargate', 'verify']);
    expect(steps.find((step) => step.kind === 'gate')?.id).toBe('h1-gate-control-plane');
    expect(() => jobSteps({ cluster: 'demo', from: '1.31', to: '1.29', direction: 'rollback' })).toThrow(/exactly one minor/);
    expect(() => jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', direction: 'rollback' })).toThrow(/exactly one minor/);
  });

  it('moves only the add-ons the older minor does not list, to its default', () => {
    const catalog = { versions: ['v1.30.14-eksbuild.5', 'v1.30.14-eksbuild.11'], defaultVersion: 'v1.30.14-eksbuild.11' };
    expect(decideAddonRollback('kube-proxy', 'v1.31.14-eksbuild.11', '1.30', catalog)).toMatchObject({ next: 'v1.30.14-eksbuild.11' });
    expect(decideAddonRollback('kube-proxy', 'v1.30.14-eksbuild.5', '1.30', catalog).next).toBeUndefined();
    expect(decideAddonRollback('x', 'v1.0.0', '1.30', { versions: [] }).next).toBeUndefined();
  });

  it('parses rollback and plan --rollback, and refuses plan --to with --rollback', () => {
    const rollback = parseCommand('rollback demo --dry-run');
    expect(rollback.ok && rollback.command).toMatchObject({ subcommand: 'rollback', target: 'demo', dryRun: true });
    const plan = parseCommand('plan demo --rollback');
    expect(plan.ok && plan.command).toMatchObject({ subcommand: 'plan', target: 'demo', rollback: true });
    const both = parseCommand('plan demo --to 1.31 --rollback');
    expect(!both.ok && both.problem).toBe('Give either `--to` (an upgrade) or `--rollback` (one minor back), not both.');
    const bare = parseCommand('rollback');
    expect(!bare.ok && bare.problem).toBe('`rollback` needs a cluster.');
  });
});
