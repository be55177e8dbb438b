import { describe, expect, it } from 'vitest';
import { abortMessage, pauseMessage, positionOf } from '../../src/report/control-messages.js';
import { backoffMs, transientAttempt } from '../../src/domain/backoff.js';
import { isTransientError } from '../../jobs/engine/classify-error.js';
import { MAX_TRANSIENT_RETRIES, TRANSIENT_BACKOFF, TRANSIENT_HEADWAY_MS } from '../../jobs/worker/upgrade-processor.js';
import { jobSteps } from '../../src/planning/planner/job-steps.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';

function jobAt(stepId: string, updates: UpgradeJobData['updates'] = {}): UpgradeJobData {
  const { hops, steps } = jobSteps({ cluster: 'demo', from: '1.30', to: '1.31', kinds: ['preflight', 'gate', 'control-plane', 'verify'] });
  return { jobId: 'j1', cluster: 'demo', from: '1.30', to: '1.31', hops, steps, stepIndex: steps.findIndex((s) => s.id === stepId), updates } as UpgradeJobData;
}

describe('control messages', () => {
  it('says AWS cannot pause an in-flight control-plane update', () => {
    const data = jobAt('h1-control-plane', { 'h1-control-plane': { cluster: { updateId: 'u1', operation: 'UpdateClusterVersion', target: '1.31', at: 1, adopted: false } } });
    expect(pauseMessage(positionOf(data, 'running', false))).toBe(
      "Paused demo's upgrade at step 'control plane to 1.31'. AWS cannot pause an in-flight control-plane update; it will finish, then the job waits.",
    );
    expect(abortMessage(positionOf(data, 'running', false))).toMatch(/AWS cannot stop the in-flight control-plane update \(u1\); the job waits for it to end/);
  });

  it('says what happens at a gate and between steps', () => {
    expect(pauseMessage(positionOf(jobAt('h1-gate-control-plane'), 'waiting-approval', true))).toMatch(/The open gate can still be answered/);
    expect(pauseMessage(positionOf(jobAt('h1-verify'), 'running', false))).toMatch(/It stops before the next step and waits until resumed\.$/);
    expect(abortMessage(positionOf(jobAt('h1-preflight'), 'running', false))).toMatch(/It stops before changing anything else/);
  });
});

describe('error classification', () => {
  it('retries throttling, 5xx and dropped connections; fails fast on access denied and bad parameters', () => {
    expect(isTransientError(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }))).toBe(true);
    expect(isTransientError(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isTransientError(Object.assign(new Error('socket'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isTransientError(Object.assign(new Error('no'), { name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } }))).toBe(false);
    expect(isTransientError(Object.assign(new Error('bad'), { name: 'InvalidParameterException', $fault: 'client' }))).toBe(false);
    expect(backoffMs(0, TRANSIENT_BACKOFF)).toBe(2000);
    expect(backoffMs(19, TRANSIENT_BACKOFF)).toBe(120_000);
  });
});

describe('transient retries count failures in a row', () => {
  const outage = { succeededCalls: 0, workedMs: 60_000 };
  const intermittent = { succeededCalls: 40, workedMs: 30_000 };

  it('gives up on an outage after MAX_TRANSIENT_RETRIES, however long each run waited', () => {
    let attempt = 0;
    for (let i = 0; i < MAX_TRANSIENT_RETRIES + 1; i++) attempt = transientAttempt(attempt, outage, TRANSIENT_HEADWAY_MS);
    expect(attempt).toBe(MAX_TRANSIENT_RETRIES + 1);
  });

  it('starts again after a run that got calls through for a while: a long step with one call in fifty dropped never runs out', () => {
    let attempt = 0;
    for (let i = 0; i < 50; i++) attempt = transientAttempt(attempt, intermittent, TRANSIENT_HEADWAY_MS);
    expect(attempt).toBe(1);
  });

  it('keeps counting when the run failed at once after a read that worked (a call that keeps failing)', () => {
    expect(transientAttempt(3, { succeededCalls: 1, workedMs: 800 }, TRANSIENT_HEADWAY_MS)).toBe(4);
  });
});

