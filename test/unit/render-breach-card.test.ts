import type { ActionsBlock, Button } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { BREACH_ROLLBACK_ACTION_ID, renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import { breachCardLines } from '../../src/report/render-guard-lines.js';
import { parseClustersYaml } from '../../src/config/clusters-config.js';
import type { GateModel } from '../../src/ports/timeline-event.js';

/** The breach card of a guard's hold (issue 29): Resume for Continue, Roll back beside it, Force and Abort kept. */
const UNTIL = Date.UTC(2026, 11, 9, 7, 0, 0);
const breach: GateModel = {
  jobId: 'job-9c1e',
  gateId: 'guard-1',
  revision: 2,
  title: 'Guard "trainer available" stopped the upgrade of batch',
  details: ['🔴 *trainer available*: breached since 07:40:00 UTC, 0.4 (breached when &lt; 1)'],
  actions: ['continue', 'force', 'abort'],
  continueLabel: 'Resume',
  rollback: { jobId: 'job-9c1e', cluster: 'batch', to: '1.30', until: UNTIL },
};

function buttonsOf(blocks: unknown[] | undefined): Button[] {
  const actions = blocks?.find((b) => (b as { type: string }).type === 'actions') as ActionsBlock | undefined;
  return (actions?.elements ?? []) as Button[];
}

describe('the breach card', () => {
  it('offers Resume (the gate\'s Continue), Roll back with a confirm dialog, Force and Abort, in blocks Slack accepts', () => {
    const message = renderGateCard(breach);
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    const buttons = buttonsOf(message.blocks);
    expect(buttons.map((b) => b.text.text)).toEqual(['Resume', 'Roll back to 1.30', 'Force', 'Abort']);
    // Cards already posted keep working: Resume is still gate:continue with the gate's reference.
    expect(buttons.map((b) => b.action_id)).toEqual(['gate:continue', BREACH_ROLLBACK_ACTION_ID, 'gate:force', 'gate:abort']);
    expect(JSON.parse(buttons[0].value!)).toEqual({ jobId: 'job-9c1e', gateId: 'guard-1', revision: 2 });
    expect(JSON.parse(buttons[1].value!)).toEqual({ jobId: 'job-9c1e', gateId: 'guard-1', revision: 2, cluster: 'batch', to: '1.30', until: UNTIL });
    expect((buttons[1].confirm as { title: { text: string } } | undefined)?.title.text).toBe('Abort and roll back?');
    expect((buttons[1].confirm as { text: { text: string } } | undefined)?.text.text).toMatch(/^Aborts this upgrade of batch where it stopped and starts rolling it back to 1\.30.*If the rollback cannot start, the upgrade stays held\.$/);
  });

  it('offers no Roll back when the card carries none, and says Resume when answered', () => {
    const { rollback: _none, ...without } = breach;
    expect(buttonsOf(renderGateCard(without).blocks).map((b) => b.text.text)).toEqual(['Resume', 'Force', 'Abort']);
    const answered = renderGateCard(breach, { action: 'continue', by: 'U0APP', at: Date.UTC(2026, 11, 2, 7, 45, 0) });
    expect(buttonsOf(answered.blocks)).toEqual([]);
    expect(answered.text).toContain('✅ Resume chosen by <@U0APP> at 07:45:00 UTC');
  });

  it('says what the buttons do and the recovery', () => {
    const guard = parseClustersYaml(`clusters:
  - name: batch
    region: us-west-2
    channels: [C0OPS]
    requesters: [U0REQ]
    approvers: [U0APP]
    guards:
      - name: trainer available
        prometheus: { url: "http://prom:9090", query: "up", breachWhen: "< 1" }
`).clusters[0].guards![0];
    const lines = breachCardLines({
      guards: [{ guard, track: { status: 'healthy', since: 0, at: 0, value: 1 } as never }],
      step: 'managed node groups to 1.31',
      awsOnItsOwn: ['UpdateNodegroupVersion of ng-a 1.31 (u-1)'],
      approvers: ['<@U0APP>'],
      rollback: { to: '1.30', until: '2026-12-09 07:00 UTC' },
      recoveredAt: '07:50:00 UTC',
    });
    expect(lines).toContain('🟢 Recovered at 07:50:00 UTC: every guard that stopped the upgrade is healthy again; Resume carries on.');
    expect(lines.at(-1)).toBe('<@U0APP> Resume carries on once the guards are healthy again; Force resumes while they are not (with a reason, audited); Roll back to 1.30 (requesters too, until 2026-12-09 07:00 UTC) aborts the upgrade here and starts the rollback. Abort ends the upgrade here.');
  });
});
