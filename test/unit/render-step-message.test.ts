import { describe, expect, it } from 'vitest';
import { renderStepMessage } from '../../src/report/blocks/render-step-message.js';
import type { StepMessageModel } from '../../src/ports/timeline-event.js';

const t0 = Date.UTC(2026, 11, 1, 2, 0, 0);
const base = { step: 'h1-karpenter', title: 'Karpenter nodes to 1.31', startedAt: t0 };

describe('a step message as the thread shows it', () => {
  it('reads ▶️ started, then the latest progress line, then ✅ with the duration and summary', () => {
    const running: StepMessageModel = { ...base, state: 'running', at: t0 };
    expect(renderStepMessage(running).text).toBe('▶️ Karpenter nodes to 1.31 started');
    const progress = renderStepMessage({ ...running, at: t0 + 60_000, progress: 'NodeClaims replaced 143/500 in default' });
    expect(progress.text).toBe('▶️ Karpenter nodes to 1.31 started — ⏳ NodeClaims replaced 143/500 in default');
    expect(JSON.stringify(progress.blocks)).toContain('started 02:00:00 UTC · step `h1-karpenter`');
    const done = renderStepMessage({ ...base, state: 'done', at: t0 + 252_000, durationMs: 252_000, summary: 'NodeClaims replaced 500/500 in default' });
    expect(done.text).toBe('✅ Karpenter nodes to 1.31 finished in 4m 12s — NodeClaims replaced 500/500 in default');
    expect(JSON.stringify(done.blocks)).toContain('02:00:00 UTC → 02:04:12 UTC');
  });

  it('reads ❌ with the reason (escaped, first line) when the step failed, ⏹️ when it was aborted', () => {
    const failed = renderStepMessage({ ...base, state: 'failed', at: t0 + 3000, durationMs: 3000, error: 'UpdateNodegroupVersion failed: <PodEvictionFailure>\nmore detail' });
    expect(failed.text).toBe('❌ Karpenter nodes to 1.31 failed after 3s — UpdateNodegroupVersion failed: &lt;PodEvictionFailure&gt;');
    const aborted = renderStepMessage({ ...base, state: 'aborted', at: t0 + 65_000, durationMs: 65_000 });
    expect(aborted.text).toBe('⏹️ Karpenter nodes to 1.31 aborted after 1m 05s');
  });

  it('reads a board beside a step (blocked nodes) as what it shows, not as a step that started or finished', () => {
    const board = { ...base, title: 'Blocked disruptions in NodePool default', shows: 'board' as const };
    const now = renderStepMessage({ ...board, state: 'running', at: t0 + 30_000, progress: '2 nodes of NodePool default cannot be replaced now' });
    expect(now.text).toBe('⚠️ Blocked disruptions in NodePool default — ⏳ 2 nodes of NodePool default cannot be replaced now');
    const over = renderStepMessage({ ...board, state: 'done', at: t0 + 252_000, durationMs: 252_000, summary: '3 nodes of NodePool default were blocked during the drift' });
    expect(over.text).toBe('✅ Blocked disruptions in NodePool default: step over after 4m 12s — 3 nodes of NodePool default were blocked during the drift');
    const aborted = renderStepMessage({ ...board, state: 'aborted', at: t0 + 65_000, durationMs: 65_000, summary: 'Aborted with 1 node still blocked' });
    expect(aborted.text).toBe('⏹️ Blocked disruptions in NodePool default: step aborted after 1m 05s — Aborted with 1 node still blocked');
  });

  it('keeps a long progress line within Slack limits', () => {
    const long = renderStepMessage({ ...base, state: 'running', at: t0, progress: 'x'.repeat(5000) });
    for (const block of long.blocks ?? []) {
      const text = (block as { text?: { text: string } }).text?.text ?? '';
      expect(text.length).toBeLessThanOrEqual(3000);
    }
  });
});
