import type { ActionsBlock, Button } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import type { GateModel } from '../../src/ports/timeline-event.js';

const at = Date.UTC(2024, 4, 1, 14, 3, 7);

const pdbGate: GateModel = {
  jobId: 'job-7f3a',
  gateId: 'h1-ng-orders-pdb',
  revision: 2,
  title: 'Node group blue-mng cannot drain: PodEvictionFailure',
  details: [
    '*Blocked pods:* `orders/orders-5b97c` (PDB `orders-pdb`, minAvailable 1, 0 disruptions allowed)',
    'Scaling `orders` to 2 replicas lets the drain proceed without downtime.',
  ],
  actions: ['abort', 'force', 'remedy', 'continue'],
  remedyLabel: 'Scale orders to 2 replicas',
};

function actionsOf(blocks: unknown[] | undefined): ActionsBlock | undefined {
  return blocks?.find((b) => (b as { type: string }).type === 'actions') as ActionsBlock | undefined;
}

describe('renderGateCard', () => {
  it('renders an open gate with the button contract the Slack surface relies on', () => {
    const message = renderGateCard(pdbGate);
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    const actions = actionsOf(message.blocks)!;
    expect(actions.block_id).toBe('gate:job-7f3a:h1-ng-orders-pdb:2');
    const buttons = actions.elements as Button[];
    expect(buttons.map((b) => b.action_id)).toEqual(['gate:continue', 'gate:remedy', 'gate:force', 'gate:abort']);
    for (const b of buttons) expect(JSON.parse(b.value!)).toEqual({ jobId: 'job-7f3a', gateId: 'h1-ng-orders-pdb', revision: 2 });
    const byId = Object.fromEntries(buttons.map((b) => [b.action_id, b]));
    expect(byId['gate:continue']).toMatchObject({ style: 'primary', text: { text: 'Continue' } });
    expect(byId['gate:remedy'].text.text).toBe('Scale orders to 2 replicas');
    expect(byId['gate:remedy'].style).toBeUndefined();
    // Force overrides a check (danger); Abort, the safe answer, keeps Slack's default style so the two look different.
    expect(byId['gate:force'].style).toBe('danger');
    expect(byId['gate:abort'].style).toBeUndefined();
    for (const id of ['gate:force', 'gate:abort']) {
      expect(byId[id].confirm?.title?.text.length).toBeLessThanOrEqual(100);
      expect(byId[id].confirm?.text.text.length).toBeLessThanOrEqual(300);
    }
    expect(message.text).toContain('Waiting for approval: Node group blue-mng cannot drain');
    expect(message).toMatchSnapshot();
  });

  it('offers only the actions the gate lists (a control-plane gate: Continue / Abort)', () => {
    const message = renderGateCard({ ...pdbGate, gateId: 'h1-control-plane', revision: 1, actions: ['continue', 'abort'], details: [] });
    const buttons = actionsOf(message.blocks)!.elements as Button[];
    expect(buttons.map((b) => b.action_id)).toEqual(['gate:continue', 'gate:abort']);
    expect(message).toMatchSnapshot();
  });

  it.each([
    ['continue', undefined, '✅ Approved by <@U0APP> at 14:03:07 UTC'],
    ['abort', undefined, '⛔ Aborted by <@U0APP> at 14:03:07 UTC'],
    ['force', 'orders team agreed to a 2-minute gap', '⚠️ Forced by <@U0APP> at 14:03:07 UTC — reason: orders team agreed to a 2-minute gap'],
    ['remedy', undefined, '🛠️ "Scale orders to 2 replicas" chosen by <@U0APP> at 14:03:07 UTC'],
    ['timeout', undefined, '⏰ No answer by 14:03:07 UTC: the gate timed out'],
  ] as const)('once answered with %s, says who and when and has no buttons', (action, reason, line) => {
    const message = renderGateCard(pdbGate, { action, by: 'U0APP', at, reason });
    expect(actionsOf(message.blocks)).toBeUndefined();
    expect(JSON.stringify(message.blocks)).toContain(JSON.stringify(line).slice(1, -1));
    expect(message.text).toContain(line);
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(message).toMatchSnapshot();
  });

  it('splits a giant details list into sections and says explicitly how many lines were left out', () => {
    const details = Array.from({ length: 2000 }, (_, i) => `• pod \`shop/orders-${String(i).padStart(4, '0')}\` blocked by PDB \`orders-pdb\``);
    const message = renderGateCard({ ...pdbGate, details });
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    const json = JSON.stringify(message.blocks);
    const more = json.match(/… (\d+) more lines \(see the exported timeline\)/);
    expect(more).not.toBeNull();
    const shown = (json.match(/shop\/orders-\d{4}/g) ?? []).length;
    expect(shown + Number(more![1])).toBe(2000);
    expect(shown).toBeGreaterThan(100);
    // The buttons survive whatever happens to the details.
    expect(actionsOf(message.blocks)?.elements).toHaveLength(4);
  });

  it('cuts a single line longer than a section and says so', () => {
    const message = renderGateCard({ ...pdbGate, details: ['z'.repeat(10_000)] });
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(JSON.stringify(message.blocks)).toContain('… (truncated, see the exported timeline)');
  });

  it('keeps an over-long title and remedy label within header and button limits', () => {
    const message = renderGateCard({ ...pdbGate, title: 't'.repeat(400), remedyLabel: 'r'.repeat(200) });
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
  });
});

describe('Waive… on the preflight card', () => {
  it('offers Waive… per blocking finding while open, and drops it once answered', () => {
    const gate: GateModel = {
      jobId: 'u1', gateId: 'h1-preflight', revision: 1, title: 'Preflight for lab → 1.31 found 1 blocking problem(s). Force past them?',
      details: ['K8S004 error: payments cannot be evicted'], actions: ['force', 'abort'],
      waivable: [{ cluster: 'lab', code: 'K8S004', resource: 'deployment/store/payments', title: 'Deployment store/payments has 1 replica' }],
    };
    const card = renderGateCard(gate);
    expect(checkMessageBlocks(card.blocks ?? [])).toEqual([]);
    const open = JSON.stringify(card.blocks);
    expect(open).toContain('"action_id":"waiver:request"');
    expect(open).toContain(JSON.stringify(JSON.stringify({ c: 'lab', k: 'K8S004', r: 'deployment/store/payments', t: 'Deployment store/payments has 1 replica' })).slice(1, -1));
    expect(JSON.stringify(renderGateCard(gate, { action: 'abort', by: 'U0APP', at: 0 }).blocks)).not.toContain('waiver:request');
  });
});
