import { describe, expect, it } from 'vitest';
import { GATE_RECHECK_MS } from '../../jobs/engine/gate-step.js';
import { controlPlaneGateStep as gateStep } from '../../jobs/steps/control-plane/control-plane-gate-step.js';
import { fakeStepContext } from './step-fake-context.js';

const gateStepAt = { id: 'h1-gate-control-plane', kind: 'gate' as const, title: 'approval: control plane of demo to 1.31' };

describe('gate step', () => {
  it('opens the gate once, parks the job, and a re-run posts nothing new', async () => {
    const { ctx, events, data } = fakeStepContext({ step: gateStepAt });
    const first = await gateStep(ctx);
    expect(first).toMatchObject({ outcome: 'wait', delayMs: GATE_RECHECK_MS });
    expect(data.state).toBe('waiting-approval');
    expect(events.map((e) => `${e.event.kind} ${e.key}`)).toEqual(['gate-opened j1:h1-control-plane:1']);
    await gateStep(ctx);
    expect(events.map((e) => e.key)).toEqual(['j1:h1-control-plane:1', 'j1:h1-control-plane:1']);
    expect(first.outcome === 'wait' && (await first.wakeEarly!())).toBe(false);
  });

  it('carries on after Continue, saying who approved, and ends the job on Abort', async () => {
    const approved = fakeStepContext({ step: gateStepAt });
    await gateStep(approved.ctx);
    await approved.gates.answer('j1', 'h1-control-plane', 1, { action: 'continue', by: 'U0APP', at: 5 });
    expect(await gateStep(approved.ctx)).toEqual({ outcome: 'done', summary: 'approved by <@U0APP>' });
    expect(approved.events.at(-1)).toMatchObject({ key: 'j1:h1-control-plane:1', event: { kind: 'gate-answered', action: 'continue', by: 'U0APP' } });

    const refused = fakeStepContext({ step: gateStepAt });
    await gateStep(refused.ctx);
    await refused.gates.answer('j1', 'h1-control-plane', 1, { action: 'abort', by: 'U0APP', at: 5 });
    expect(await gateStep(refused.ctx)).toMatchObject({ outcome: 'abort', by: 'U0APP', reason: '<@U0APP> chose Abort at "Upgrade the control plane of demo to 1.31?"' });
  });

  it('answers the open gate with Abort when an abort was requested from the command line', async () => {
    const { ctx, controls, gates } = fakeStepContext({ step: gateStepAt });
    await gateStep(ctx);
    controls.abort = { by: 'U0OPS', at: 7 };
    expect(await gateStep(ctx)).toMatchObject({ outcome: 'abort', by: 'U0OPS' });
    expect(gates.records.get('h1-control-plane')?.answer).toMatchObject({ action: 'abort', by: 'U0OPS' });
  });

  it('reminds the channel once when the gate times out, and aborts only when configured to', async () => {
    const reminded = fakeStepContext({ step: gateStepAt, cluster: { gateTimeoutMinutes: 5 } });
    // The job wakes when the timeout is due (or at the regular recheck, whichever comes first).
    expect(await gateStep(reminded.ctx)).toMatchObject({ outcome: 'wait', delayMs: 5 * 60_000 });
    reminded.clock.at += 6 * 60_000;
    expect(await gateStep(reminded.ctx)).toMatchObject({ outcome: 'wait' });
    await gateStep(reminded.ctx);
    const notes = reminded.events.filter((e) => e.event.kind === 'note');
    expect(notes).toHaveLength(1);
    expect(notes[0].event).toMatchObject({ level: 'warning', text: 'Reminder: "Upgrade the control plane of demo to 1.31?" has waited 5 minutes for an approver.' });

    const strict = fakeStepContext({ step: gateStepAt, cluster: { gateTimeoutMinutes: 30, abortOnGateTimeout: true } });
    await gateStep(strict.ctx);
    strict.clock.at += 31 * 60_000;
    expect(await gateStep(strict.ctx)).toMatchObject({ outcome: 'abort', reason: 'nobody answered "Upgrade the control plane of demo to 1.31?" within 30 minutes' });
  });

  it('only reports in a dry run', async () => {
    const { ctx, events } = fakeStepContext({ step: gateStepAt, data: { dryRun: true } });
    expect(await gateStep(ctx)).toMatchObject({ outcome: 'dry-run', summary: expect.stringContaining('would ask the approvers') });
    expect(events).toEqual([]);
  });
});
