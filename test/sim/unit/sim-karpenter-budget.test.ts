import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube-types/kube-object.js';
import { allowedDisruptions, isBudgetActive, UNLIMITED } from '../../../src/sim/karpenter/disruption/disruption-budget.js';
import { nextFiring, parseCron, parseGoDuration } from '../../../src/sim/karpenter/disruption/cron-schedule.js';

const pool = (budgets?: unknown[]): KubeObject => ({ metadata: { name: 'default' }, spec: { disruption: budgets === undefined ? {} : { budgets } } });
const at = (iso: string) => Date.parse(iso);
const MONDAY_10 = at('2026-01-05T10:00:00Z'); // 2026-01-05 is a Monday

describe('NodePool disruption budgets', () => {
  it('rounds percentages of initialized nodes up', () => {
    expect(allowedDisruptions(pool([{ nodes: '10%' }]), 'Drifted', 2, MONDAY_10).allowed).toBe(1);
    expect(allowedDisruptions(pool([{ nodes: '10%' }]), 'Drifted', 0, MONDAY_10).allowed).toBe(0);
    expect(allowedDisruptions(pool([{ nodes: '34%' }]), 'Drifted', 3, MONDAY_10).allowed).toBe(2);
    expect(allowedDisruptions(pool([{ nodes: '100%' }]), 'Drifted', 7, MONDAY_10).allowed).toBe(7);
  });

  it('defaults to 10% when no budgets are written, and to no limit when the list is empty', () => {
    expect(allowedDisruptions(pool(), 'Drifted', 25, MONDAY_10).allowed).toBe(3);
    expect(allowedDisruptions(pool([]), 'Drifted', 25, MONDAY_10).allowed).toBe(UNLIMITED);
  });

  it('takes the minimum of the budgets that name the reason', () => {
    const budgets = [{ nodes: '5' }, { nodes: '1', reasons: ['Drifted'] }, { nodes: '0', reasons: ['Empty', 'Underutilized'] }];
    expect(allowedDisruptions(pool(budgets), 'Drifted', 10, MONDAY_10).allowed).toBe(1);
    expect(allowedDisruptions(pool(budgets), 'Empty', 10, MONDAY_10).allowed).toBe(0);
  });

  it('applies a scheduled budget only inside its window', () => {
    const businessHours = [{ schedule: '0 9 * * mon-fri', duration: '8h', nodes: '0' }, { nodes: '10' }];
    expect(allowedDisruptions(pool(businessHours), 'Drifted', 20, MONDAY_10).allowed).toBe(0);
    expect(allowedDisruptions(pool(businessHours), 'Drifted', 20, at('2026-01-05T17:00:00Z')).allowed).toBe(10);
    expect(allowedDisruptions(pool(businessHours), 'Drifted', 20, at('2026-01-05T16:59:59Z')).allowed).toBe(0);
    expect(allowedDisruptions(pool(businessHours), 'Drifted', 20, at('2026-01-10T10:00:00Z')).allowed).toBe(10);
  });

  it('allows nothing when any budget is misconfigured', () => {
    expect(allowedDisruptions(pool([{ nodes: 'two' }, { nodes: '5' }]), 'Drifted', 10, MONDAY_10)).toMatchObject({ allowed: 0, problem: expect.stringContaining('two') });
    expect(allowedDisruptions(pool([{ nodes: '1', schedule: '@daily' }]), 'Drifted', 10, MONDAY_10)).toMatchObject({ allowed: 0, problem: 'schedule and duration must be set together' });
    expect(allowedDisruptions(pool([{ nodes: '1', schedule: '61 * * * *', duration: '1h' }]), 'Drifted', 10, MONDAY_10).allowed).toBe(0);
    expect(allowedDisruptions(pool([{ nodes: '1', schedule: '@daily', duration: '8 hours' }]), 'Drifted', 10, MONDAY_10).allowed).toBe(0);
  });
});

describe('budget schedules (robfig/cron standard syntax, UTC)', () => {
  it('parses descriptors, names, ranges, lists and steps', () => {
    expect(isBudgetActive({ schedule: '@daily', duration: '1h' }, at('2026-01-05T00:30:00Z'))).toBe(true);
    expect(isBudgetActive({ schedule: '@daily', duration: '1h' }, at('2026-01-05T01:00:00Z'))).toBe(false);
    expect(isBudgetActive({ schedule: '*/15 * * * *', duration: '5m' }, at('2026-01-05T10:47:00Z'))).toBe(true);
    expect(isBudgetActive({ schedule: '*/15 * * * *', duration: '5m' }, at('2026-01-05T10:52:00Z'))).toBe(false);
    expect(isBudgetActive({ schedule: '0 22 * DEC,JAN SAT,SUN', duration: '1h30m' }, at('2026-01-04T23:15:00Z'))).toBe(true);
    expect(() => parseCron('0 9 * *')).toThrow(/5 fields/);
  });

  it('matches day-of-month OR day-of-week when both are restricted, AND when either is *', () => {
    const either = parseCron('0 0 1 * mon');
    expect(nextFiring(either, at('2026-01-02T00:00:00Z'), at('2026-01-06T00:00:00Z'))).toBe(at('2026-01-05T00:00:00Z'));
    const mondaysOnly = parseCron('0 0 * * mon');
    expect(nextFiring(mondaysOnly, at('2025-12-31T00:00:00Z'), at('2026-01-02T00:00:00Z'))).toBeUndefined();
  });

  it('reads Go durations as budgets write them', () => {
    expect(parseGoDuration('8h')).toBe(8 * 3_600_000);
    expect(parseGoDuration('1h30m')).toBe(90 * 60_000);
    expect(parseGoDuration('10h0m0s')).toBe(10 * 3_600_000);
    expect(() => parseGoDuration('')).toThrow();
  });
});
