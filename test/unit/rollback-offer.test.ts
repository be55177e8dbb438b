import { describe, expect, it } from 'vitest';
import { rollbackOfferOf, summaryEvent } from '../../jobs/worker/finish-job.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import { rollbackOfferBlocks, renderTimelineEvent } from '../../src/report/blocks/render-timeline-event.js';

/** The Roll back offer (issue 10): from a finished upgrade job's data to the button on its summary and failure cards. */
const UNTIL = Date.parse('2026-12-08T10:00:00Z');
function job(patch: Partial<UpgradeJobData> = {}): UpgradeJobData {
  return {
    schema: 2, jobId: 'j1', cluster: 'demo', region: 'us-west-2', from: '1.30', to: '1.31', hops: ['1.31'], requestedBy: 'U0REQ', channel: 'C0', thread: { channel: 'C0', ts: '1.0' },
    dryRun: false, startedAt: 0, state: 'succeeded', stepIndex: 2, pauseSeq: 0, retries: {}, updates: {}, acted: {},
    steps: [
      { id: 'h1-control-plane', kind: 'control-plane', hop: 1, from: '1.30', to: '1.31', title: 'control plane to 1.31' },
      { id: 'h1-verify', kind: 'verify', hop: 1, from: '1.30', to: '1.31', title: 'verify 1.31' },
    ],
    stepRuns: { 'h1-control-plane': { startedAt: 0, finishedAt: 1, outcome: 'done' }, 'h1-verify': { startedAt: 1, finishedAt: 2, outcome: 'done' } },
    stepState: { 'h1-control-plane': { rollbackUntil: UNTIL } },
    ...patch,
  };
}

describe('the Roll back offer', () => {
  it('goes one minor back from where the job left the control plane, until 7 days after the update', () => {
    expect(rollbackOfferOf(job())).toEqual({ jobId: 'j1', cluster: 'demo', to: '1.30', until: UNTIL });
    expect(summaryEvent(job(), 5).rollback?.to).toBe('1.30');
  });

  it('is not made for dry runs, rollbacks, failed jobs or jobs that moved no control plane', () => {
    expect(rollbackOfferOf(job({ dryRun: true }))).toBeUndefined();
    expect(rollbackOfferOf(job({ rollback: { timeoutMinutes: 720 } }))).toBeUndefined();
    expect(rollbackOfferOf(job({ stepState: {} }))).toBeUndefined();
    expect(summaryEvent(job({ state: 'failed' }), 5).rollback).toBeUndefined();
  });

  it('renders a "Roll back to 1.30" button with the date, and a plain line once the window has closed', () => {
    const offer = rollbackOfferOf(job())!;
    const open = JSON.stringify(rollbackOfferBlocks(offer, UNTIL - 1));
    expect(open).toContain('"action_id":"rollback:start"');
    expect(open).toContain('Roll back to 1.30');
    expect(open).toContain('Roll back works until 2026-12-08 10:00 UTC');
    const closed = JSON.stringify(rollbackOfferBlocks(offer, UNTIL + 1));
    expect(closed).not.toContain('rollback:start');
    expect(closed).toContain('was possible until 2026-12-08 10:00 UTC');
  });

  it('puts the button on a failed verify card next to the findings', () => {
    const message = renderTimelineEvent({ kind: 'step-failed', at: 0, step: 'h1-verify', title: 'verify 1.31', error: 'nodes behind', remedy: 'look at them', rollback: rollbackOfferOf(job())! });
    expect(JSON.stringify(message.blocks)).toContain('Roll back to 1.30');
  });
});
