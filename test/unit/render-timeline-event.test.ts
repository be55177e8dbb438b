import { describe, expect, it } from 'vitest';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { renderGateCard } from '../../src/report/blocks/render-gate-card.js';
import { renderTimelineEvent } from '../../src/report/blocks/render-timeline-event.js';
import type { GateModel, TimelineEvent } from '../../src/ports/timeline-event.js';

const t0 = Date.UTC(2024, 4, 1, 13, 50, 37);

const gate: GateModel = {
  jobId: 'job-7f3a',
  gateId: 'h1-control-plane',
  revision: 1,
  title: 'Upgrade the control plane of prod-eu to 1.31?',
  details: ['Preflight: 0 errors, 1 warning (`EKS002` deprecated API `flowcontrol/v1beta2` in use).'],
  actions: ['continue', 'abort'],
};

const EVENTS: Record<TimelineEvent['kind'], TimelineEvent> = {
  'step-started': { kind: 'step-started', at: t0, step: 'h1-control-plane', title: 'Control plane 1.30 → 1.31' },
  'step-finished': {
    kind: 'step-finished',
    at: t0 + 750_000,
    step: 'h1-control-plane',
    title: 'Control plane 1.30 → 1.31',
    durationMs: 750_000,
    summary: 'Cluster prod-eu is at 1.31 (platform eks.5).',
  },
  'step-failed': {
    kind: 'step-failed',
    at: t0 + 60_000,
    step: 'h1-addons',
    title: 'Add-on vpc-cni',
    error: 'UpdateAddon vpc-cni: InvalidParameterException: Addon version v1.99 is not supported for 1.31 <see docs>',
    remedy: 'Pick a version from `aws eks describe-addon-versions --addon-name vpc-cni --kubernetes-version 1.31`, then Force.',
  },
  progress: { kind: 'progress', at: t0 + 90_000, step: 'h1-karpenter-default', text: 'NodeClaims replaced 3/10 (2 in flight)' },
  note: { kind: 'note', at: t0 + 95_000, level: 'warning', text: 'DisruptionBlocked on node ip-10-0-1-7: PDB `orders-pdb`\nPod `orders/orders-5b97c`' },
  'gate-opened': { kind: 'gate-opened', at: t0 + 5_000, gate },
  'gate-answered': { kind: 'gate-answered', at: Date.UTC(2024, 4, 1, 14, 3, 7), gate, action: 'continue', by: 'U0APP' },
  summary: {
    kind: 'summary',
    at: t0 + 3_600_000,
    state: 'succeeded',
    from: '1.30',
    to: '1.31',
    steps: [
      { title: 'Preflight', durationMs: 4_200, outcome: 'ok, 1 warning' },
      { title: 'Control plane 1.30 → 1.31', durationMs: 750_000, outcome: 'done' },
      { title: 'Add-ons', durationMs: 95_000, outcome: 'done (3 updated)' },
      { title: 'Karpenter NodePool default', durationMs: 1_510_000, outcome: 'NodeClaims replaced 10/10' },
    ],
    lines: ['All 12 nodes at v1.31.7-eks-f69f56f.', 'Images: 2 changed (kube-proxy, coredns).'],
  },
};

describe('renderTimelineEvent', () => {
  it.each(Object.keys(EVENTS) as Array<TimelineEvent['kind']>)('renders %s within Block Kit limits', (kind) => {
    const message = renderTimelineEvent(EVENTS[kind]);
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(message.text.length).toBeGreaterThan(10);
    expect(message).toMatchSnapshot();
  });

  it('says how long a finished step took', () => {
    expect(renderTimelineEvent(EVENTS['step-finished']).text).toBe(
      'Finished: Control plane 1.30 → 1.31 in 12m 30s — Cluster prod-eu is at 1.31 (platform eks.5).',
    );
  });

  it('shows a failure with the error (escaped) and what to do, with generic advice when the step gave none', () => {
    const json = JSON.stringify(renderTimelineEvent(EVENTS['step-failed']).blocks);
    expect(json).toContain('&lt;see docs&gt;');
    expect(json).toContain('*What to do*');
    expect(json).toContain('describe-addon-versions');
    const generic = JSON.stringify(renderTimelineEvent({ ...EVENTS['step-failed'], remedy: undefined } as TimelineEvent).blocks);
    expect(generic).toContain('/eks-upgrade resume');
  });

  it('renders gate events exactly as the gate card does', () => {
    expect(renderTimelineEvent(EVENTS['gate-opened'])).toEqual(renderGateCard(gate));
    expect(renderTimelineEvent(EVENTS['gate-answered'])).toEqual(
      renderGateCard(gate, { action: 'continue', by: 'U0APP', at: Date.UTC(2024, 4, 1, 14, 3, 7) }),
    );
  });

  it('puts every step with its duration in the summary table', () => {
    const json = JSON.stringify(renderTimelineEvent(EVENTS.summary).blocks);
    for (const duration of ['4s', '12m 30s', '1m 35s', '25m 10s']) expect(json).toContain(duration);
    expect(json).toContain('39m 19s in all');
  });

  it('keeps a summary of a thousand steps within limits and points at the export for the rest', () => {
    const steps = Array.from({ length: 1000 }, (_, i) => ({ title: `Node group ng-${i}`, durationMs: 61_000, outcome: 'done' }));
    const message = renderTimelineEvent({ ...EVENTS.summary, steps } as TimelineEvent);
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(JSON.stringify(message.blocks)).toMatch(/… \d+ more lines \(see the exported timeline\)/);
    expect(message.text.length).toBeLessThanOrEqual(4000);
  });

  it('splits a note of many lines and says what it left out', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `node ip-10-0-${i} drifted`).join('\n');
    const message = renderTimelineEvent({ kind: 'note', at: t0, level: 'info', text });
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(JSON.stringify(message.blocks)).toMatch(/… \d+ more lines \(see the exported timeline\)/);
  });
});
