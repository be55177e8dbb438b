import { describe, expect, it } from 'vitest';
import { ConfigError, parseClustersConfig } from '../../src/config/clusters-config.js';
import { planHash, rehearsalProblem } from '../../src/planning/planner/plan-hash.js';
import type { UpgradePlan } from '../../src/ports/upgrade-plan.js';

const entry = { name: 'prod', region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'] };
const plan = (to: string, action = 'update-control-plane') =>
  ({ cluster: 'prod', from: '1.30', to, hops: [{ steps: [{ kind: 'control-plane', resource: 'cluster/prod', from: '1.30', to, actions: [{ resource: 'cluster/prod', action, from: '1.30', to }] }] }] }) as unknown as UpgradePlan;
const HOUR = 3_600_000;

describe('requireRehearsal', () => {
  it('clusters.yaml takes hours ("24h") and refuses anything else with the field named', () => {
    expect(parseClustersConfig({ clusters: [{ ...entry, requireRehearsal: '24h' }] }).clusters[0].requireRehearsalHours).toBe(24);
    expect(parseClustersConfig({ clusters: [entry] }).clusters[0].requireRehearsalHours).toBeUndefined();
    expect(() => parseClustersConfig({ clusters: [{ ...entry, requireRehearsal: '1 day' }] })).toThrow(ConfigError);
    expect(() => parseClustersConfig({ clusters: [{ ...entry, requireRehearsal: '1 day' }] })).toThrow(/requireRehearsal: must be a number of hours like "24h"/);
  });

  it('lets a start through only after a recent successful rehearsal of the same plan, and otherwise says what to run', () => {
    const now = 100 * HOUR;
    const good = { planHash: planHash(plan('1.31')), state: 'succeeded', at: now - 2 * HOUR };
    expect(rehearsalProblem('prod', '1.31', plan('1.31'), good, 24, now)).toBeUndefined();
    expect(rehearsalProblem('prod', '1.31', plan('1.31'), undefined, 24, now)).toMatch(/none to 1\.31 is on record: run `\/eks-upgrade rehearse prod --to 1\.31`/);
    expect(rehearsalProblem('prod', '1.31', plan('1.31'), { ...good, at: now - 30 * HOUR }, 24, now)).toMatch(/the last one is 30h old/);
    expect(rehearsalProblem('prod', '1.31', plan('1.31'), { ...good, state: 'aborted' }, 24, now)).toMatch(/ended aborted/);
    expect(rehearsalProblem('prod', '1.31', plan('1.31', 'other'), good, 24, now)).toMatch(/plan has changed since the last rehearsal/);
  });
});
