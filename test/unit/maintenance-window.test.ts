import { describe, expect, it } from 'vitest';
import { describeWindow, isWithinWindow, nextWindowOpening } from '../../src/domain/maintenance-window.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { windowProblem } from '../../commands/start.js';

const weekdays = { days: ['tue', 'wed', 'thu'], start: '09:00', end: '17:00' };
const overnight = { days: ['sat'], start: '22:00', end: '02:00' };
// 2026-12-01 is a Tuesday.
const at = (iso: string) => Date.parse(iso);

describe('maintenance window', () => {
  it('is open from its start up to, not including, its end on the listed days', () => {
    expect(isWithinWindow(weekdays, at('2026-12-01T09:00:00Z'))).toBe(true);
    expect(isWithinWindow(weekdays, at('2026-12-01T16:59:59Z'))).toBe(true);
    expect(isWithinWindow(weekdays, at('2026-12-01T17:00:00Z'))).toBe(false);
    expect(isWithinWindow(weekdays, at('2026-12-01T08:59:59Z'))).toBe(false);
    expect(isWithinWindow(weekdays, at('2026-11-30T12:00:00Z'))).toBe(false); // Monday
  });

  it('runs past midnight when the end is before the start, counting from the day it opens', () => {
    expect(isWithinWindow(overnight, at('2026-12-05T23:00:00Z'))).toBe(true); // Saturday night
    expect(isWithinWindow(overnight, at('2026-12-06T01:30:00Z'))).toBe(true); // early Sunday, same window
    expect(isWithinWindow(overnight, at('2026-12-06T23:00:00Z'))).toBe(false); // Sunday night: not listed
  });

  it('says when it next opens', () => {
    expect(new Date(nextWindowOpening(weekdays, at('2026-11-30T12:00:00Z'))!).toISOString()).toBe('2026-12-01T09:00:00.000Z');
    expect(new Date(nextWindowOpening(weekdays, at('2026-12-03T18:00:00Z'))!).toISOString()).toBe('2026-12-08T09:00:00.000Z');
    expect(describeWindow(weekdays)).toBe('Tue, Wed, Thu 09:00–17:00 UTC');
  });
});

describe('start outside the maintenance window', () => {
  const cluster = parseClustersConfig({
    clusters: [{ name: 'prod-eu', region: 'eu-west-1', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], maintenanceWindow: weekdays }],
  }).clusters[0];

  it('is refused with the window and its next opening, and says a dry run works', () => {
    const problem = windowProblem(cluster, at('2026-11-30T12:00:00Z'), false);
    expect(problem).toBe(
      'prod-eu may only be upgraded in its maintenance window (Tue, Wed, Thu 09:00–17:00 UTC). The next one opens Tue, 01 Dec 2026 09:00 UTC. ' +
        '`/eks-upgrade start prod-eu --to &lt;minor&gt; --dry-run` works at any time.',
    );
  });

  it('is allowed inside the window, for a dry run, and for clusters without a window', () => {
    expect(windowProblem(cluster, at('2026-12-01T10:00:00Z'), false)).toBeUndefined();
    expect(windowProblem(cluster, at('2026-11-30T12:00:00Z'), true)).toBeUndefined();
    expect(windowProblem({ ...cluster, maintenanceWindow: undefined }, at('2026-11-30T12:00:00Z'), false)).toBeUndefined();
  });
});
