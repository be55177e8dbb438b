import { describe, expect, it } from 'vitest';
import { simControl } from '@eks-upgrade-bot/sim/kit';
import { until } from '../support/until.js';
import { startAlertmanager } from '../support/alertmanager-server.js';
import { waitForJobState } from './engine-harness.js';
import { kit, useGuardKit, NODES, AVAILABILITY, gatesOf, notes, startGuardedUpgrade } from './engine-guards-kit.js';

/**
 * Guards in the engine (issue 29), one case per file so the suite's two workers run them side by side (each waits
 * on a real Prometheus's scrapes): an Alertmanager alert fired by a real Prometheus rule holds the upgrade, and
 * autoResume resumes it. The set-up is engine-guards-kit.ts.
 */
useGuardKit();

describe('upgrade engine: a guard stops the bot replacing nodes', () => {
  it('stops on an Alertmanager alert fired by a Prometheus rule, and resumes by itself once it resolves (autoResume)', async () => {
    kit.alertmanager = await startAlertmanager();
    const rules = `groups:\n  - name: trainer\n    rules:\n      - alert: TrainerUnavailable\n        expr: '${AVAILABILITY} < 1'\n        labels: { severity: critical, namespace: batch }\n`;
    const { harness, engine, jobId } = await startGuardedUpgrade(() => [
      { name: 'critical alerts', alertmanager: { url: kit.alertmanager!.url, matchers: ['severity="critical"', 'namespace=~"batch|shop"'] }, interval: '1s', autoResume: true },
    ], { rules, alertmanagerUrl: kit.alertmanager.url });
    await simControl(harness.sim, 'POST', 'workloads/fail', { namespace: 'batch', name: 'trainer', onVersion: '1.31' });
    const card = await until(() => gatesOf(harness).find((gate) => gate.gateId === 'guard-1'), 'the breach card', 150_000);
    expect(card.details[0]).toMatch(/🔴 \*critical alerts\*: breached since \d\d:\d\d:\d\d UTC, 1 alert firing: TrainerUnavailable/);
    expect(card.details[1]).toBe('   watches alerts matching severity="critical", namespace=~"batch|shop"');
    const terminatedAtBreach = harness.calls('TerminateInstanceInAutoScalingGroup').length;
    expect(terminatedAtBreach).toBeLessThan(NODES);

    await simControl(harness.sim, 'DELETE', 'workloads/fail', { namespace: 'batch', name: 'trainer' });
    await until(() => notes(harness).some((text) => text.startsWith('Guard "critical alerts" recovered') && text.includes('resumes by itself')), 'the recovery note', 90_000);
    const done = await waitForJobState(engine, jobId, ['succeeded', 'failed', 'aborted'], 150_000);
    expect(done.state, JSON.stringify(harness.thread.events('step-failed'))).toBe('succeeded');
    const resumed = harness.thread.events('gate-answered').find((event) => event.kind === 'gate-answered' && event.gate.gateId === 'guard-1');
    expect(resumed).toMatchObject({ action: 'continue', by: 'autoResume of guard "critical alerts"' });
    expect(harness.calls('TerminateInstanceInAutoScalingGroup').length).toBe(NODES);
  }, 400_000);
});
