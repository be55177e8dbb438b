import { describe, expect, it } from 'vitest';
import { renderTimelineMarkdown } from '../../src/report/blocks/render-timeline-markdown.js';
import type { GateModel, TimelineEvent } from '../../src/ports/timeline-event.js';

const t0 = Date.UTC(2024, 4, 1, 13, 50, 37);
const job = { cluster: 'prod-eu', from: '1.30', to: '1.31', jobId: 'job-7f3a', requestedBy: 'U0REQ', startedAt: t0 };
const cpGate: GateModel = {
  jobId: 'job-7f3a',
  gateId: 'h1-control-plane',
  revision: 1,
  title: 'Upgrade the control plane of prod-eu to 1.31?',
  details: [],
  actions: ['continue', 'abort'],
};
const pdbGate: GateModel = {
  jobId: 'job-7f3a',
  gateId: 'h1-ng-blue-mng-pdb',
  revision: 1,
  title: 'Node group blue-mng cannot drain',
  details: ['Pod `orders/orders-5b97c` | PDB `orders-pdb` (0 disruptions allowed)'],
  actions: ['continue', 'force', 'remedy', 'abort'],
  remedyLabel: 'Scale orders to 2 replicas',
};

const events: TimelineEvent[] = [
  { kind: 'step-started', at: t0, step: 'h1-preflight', title: 'Preflight' },
  { kind: 'step-finished', at: t0 + 4_000, step: 'h1-preflight', title: 'Preflight', durationMs: 4_000, summary: '0 errors, 1 warning' },
  { kind: 'gate-opened', at: t0 + 5_000, gate: cpGate },
  { kind: 'gate-answered', at: t0 + 65_000, gate: cpGate, action: 'continue', by: 'U0APP' },
  { kind: 'step-started', at: t0 + 66_000, step: 'h1-control-plane', title: 'Control plane 1.30 → 1.31' },
  { kind: 'progress', at: t0 + 300_000, step: 'h1-control-plane', text: 'UpdateClusterVersion InProgress' },
  { kind: 'step-finished', at: t0 + 666_000, step: 'h1-control-plane', title: 'Control plane 1.30 → 1.31', durationMs: 600_000 },
  { kind: 'step-started', at: t0 + 667_000, step: 'h1-ng-blue-mng', title: 'Node group blue-mng' },
  { kind: 'gate-opened', at: t0 + 900_000, gate: pdbGate },
  { kind: 'gate-answered', at: t0 + 960_000, gate: pdbGate, action: 'force', by: '<@U0APP>', reason: 'orders team agreed | 2 min gap' },
  { kind: 'note', at: t0 + 961_000, level: 'warning', text: 'Evicting orders/orders-5b97c despite orders-pdb (forced).' },
  { kind: 'step-failed', at: t0 + 1_200_000, step: 'h1-ng-blue-mng', title: 'Node group blue-mng', error: 'NodeCreationFailure: instances failed to join' },
  {
    kind: 'summary',
    at: t0 + 1_201_000,
    state: 'failed',
    from: '1.30',
    to: '1.31',
    steps: [],
    lines: ['Control plane at 1.31; node group blue-mng still at 1.30.'],
  },
];

describe('renderTimelineMarkdown', () => {
  it('exports steps with durations, who decided what, and every event with its UTC time', () => {
    const markdown = renderTimelineMarkdown(job, events);
    expect(markdown).toMatchSnapshot();
    expect(markdown).toContain('| Control plane 1.30 → 1.31 | 2024-05-01 13:51:43 UTC | 2024-05-01 14:01:43 UTC | 10m 00s | done |');
    expect(markdown).toContain('| Upgrade the control plane of prod-eu to 1.31? | approved | U0APP | 2024-05-01 13:51:42 UTC |  |');
    expect(markdown).toContain('| forced | U0APP | 2024-05-01 14:06:37 UTC | orders team agreed \\| 2 min gap |');
    expect(markdown).toContain('| Node group blue-mng | 2024-05-01 14:01:44 UTC | 2024-05-01 14:10:37 UTC | 8m 53s | failed — NodeCreationFailure');
    expect(markdown.match(/^- 2024-05-01 \d\d:\d\d:\d\d UTC — /gm)).toHaveLength(events.length);
  });

  it('keeps full gate details that the Slack card may have cut', () => {
    const details = Array.from({ length: 500 }, (_, i) => `pod shop/orders-${i}`);
    const markdown = renderTimelineMarkdown(job, [{ kind: 'gate-opened', at: t0, gate: { ...pdbGate, details } }]);
    expect(markdown).toContain('pod shop/orders-499');
    expect(markdown).toContain('still running when this file was exported');
  });

  it('orders events by time even when they were stored out of order', () => {
    const markdown = renderTimelineMarkdown(job, [...events].reverse());
    expect(markdown).toBe(renderTimelineMarkdown(job, events));
  });
});
