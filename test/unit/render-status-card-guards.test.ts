import { describe, expect, it } from 'vitest';
import { renderStatusCard } from '../../src/report/blocks/render-status-card.js';
import type { StatusCardModel } from '../../src/ports/timeline-event.js';

const at = Date.UTC(2026, 11, 1, 14, 3, 7);
const card: StatusCardModel = {
  jobId: 'u1234567', cluster: 'prod', from: '1.30', to: '1.31', state: 'paused', currentStep: 'self-managed node groups to 1.31',
  startedBy: 'U0REQ', startedAt: at - 600_000, updatedAt: at, dryRun: false,
};

describe('the status card and guards', () => {
  it("shows each guard's last evaluation", () => {
    const blocks = JSON.stringify(renderStatusCard({ ...card, guards: [{ name: 'checkout available', status: 'breached', at }, { name: 'critical alerts', status: 'healthy', at: at - 1_000 }] }).blocks);
    expect(blocks).toContain('Guards: 🔴 checkout available breached · 🟢 critical alerts healthy (last read 14:03:07 UTC)');
  });

  it('says nothing of guards when the cluster has none', () => {
    expect(JSON.stringify(renderStatusCard(card).blocks)).not.toContain('Guards');
  });
});
