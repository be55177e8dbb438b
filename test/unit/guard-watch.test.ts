import { describe, expect, it } from 'vitest';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import { guardGateLines, guardsApply, haltingGuards, watchGuards, type GuardRuntime } from '../../jobs/worker/guard-watch.js';
import type { GuardReading } from '../../src/ports/guards/guard-port.js';
import type { GuardEvaluation } from '../../src/ports/guards/guard-evaluations.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { TimelineEvent } from '../../src/ports/timeline-event.js';
import { createLogger } from '../../src/log/logger.js';

const cluster = parseClustersYaml(`clusters:
  - name: demo
    region: us-west-2
    channels: [C0DEMO]
    requesters: [U0REQ]
    approvers: [U0APP]
    guards:
      - name: critical alerts
        alertmanager: { url: "http://am:9093", matchers: ['severity="critical"'] }
        interval: 30s
`).clusters[0];

/** A job's runtime as the guard watch sees it, on a clock the test moves, with a source that answers `reading`. */
function runtimeOf(data: Partial<UpgradeJobData>, reading: () => GuardReading) {
  let now = 1_000_000;
  const events: TimelineEvent[] = [];
  let reads = 0;
  const runtime: GuardRuntime = {
    data: { jobId: 'u1234567', steps: [{ id: 'h1-self-managed', title: 'self-managed node groups to 1.31' }], stepIndex: 0, ...data } as UpgradeJobData,
    clusterConfig: cluster,
    deps: {
      clock: { now: () => now, sleep: async () => undefined },
      logger: createLogger({ level: 'silent' }),
      guards: { read: async () => (reads++, reading()), history: async () => undefined },
    },
    save: async () => undefined,
    emitKeyed: async (_thread, _log, event) => void events.push(event),
  };
  return { runtime, events, reads: () => reads, tick: (ms: number) => (now += ms) };
}

const firing: GuardReading = { kind: 'alerts', alerts: [{ name: 'CheckoutDown', labels: { severity: 'critical' } }] };

describe('the guard watch', () => {
  it('holds an upgrade on a breach, reading each guard once per interval', async () => {
    const { runtime, reads, tick } = runtimeOf({}, () => firing);
    await watchGuards(runtime);
    expect(runtime.data.guards!.hold).toEqual({ seq: 1, guards: ['critical alerts'], since: 1_000_000, step: 'self-managed node groups to 1.31' });
    await watchGuards(runtime);
    tick(29_999);
    await watchGuards(runtime);
    expect(reads()).toBe(1);
    tick(1);
    await watchGuards(runtime);
    expect(reads()).toBe(2);
  });

  it('never holds a rollback, whose gate cards show the guards for information', async () => {
    const { runtime } = runtimeOf({ rollback: { timeoutMinutes: 720 } }, () => firing);
    await watchGuards(runtime);
    expect(guardsApply(runtime)).toBe(false);
    expect(runtime.data.guards!.hold).toBeUndefined();
    expect(guardGateLines(runtime)).toEqual([
      'Guards (for information: guards never stop a rollback):',
      expect.stringMatching(/^🔴 \*critical alerts\*: breached since \d\d:\d\d:\d\d UTC, 1 alert firing: CheckoutDown$/),
    ]);
  });

  it('records each evaluation for `status` as the job\'s, the value and when it was read', async () => {
    const { runtime, tick } = runtimeOf({ cluster: 'demo' }, () => firing);
    const recorded: Array<[string, Record<string, GuardEvaluation>]> = [];
    runtime.deps.guardEvaluations = { record: async (name, evaluations) => void recorded.push([name, evaluations]), last: async () => ({}) };
    await watchGuards(runtime);
    tick(1_000);
    await watchGuards(runtime); // not due: nothing read, nothing recorded
    expect(recorded).toEqual([['demo', { 'critical alerts': { status: 'breached', value: 1, subject: 'CheckoutDown', at: 1_000_000, since: 1_000_000, troubleSince: 1_000_000, by: 'upgrade job `u1234567`' } }]]);
  });

  it('reads nothing for a dry run', async () => {
    const { runtime, reads } = runtimeOf({ dryRun: true }, () => firing);
    await watchGuards(runtime);
    expect(reads()).toBe(0);
  });

  it('says in the thread when a guard recovers, and a guard forced past counts again from then', async () => {
    let reading: GuardReading = firing;
    const { runtime, events, tick } = runtimeOf({}, () => reading);
    await watchGuards(runtime);
    runtime.data.guards!.overridden['critical alerts'] = { by: 'U0APP', at: 1 };
    runtime.data.guards!.hold = undefined;
    expect(haltingGuards(runtime)).toEqual([]);
    reading = { kind: 'alerts', alerts: [] };
    tick(30_000);
    await watchGuards(runtime);
    expect(events).toEqual([expect.objectContaining({ kind: 'note', text: expect.stringMatching(/^Guard "critical alerts" recovered at \d\d:\d\d:\d\d UTC: no matching alert firing\.$/) })]);
    expect(runtime.data.guards!.overridden).toEqual({});
  });
});
