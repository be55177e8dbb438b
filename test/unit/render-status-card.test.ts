import { describe, expect, it } from 'vitest';
import { checkMessageBlocks } from '@eks-upgrade-bot/sim';
import { renderStatusCard } from '../../src/report/blocks/render-status-card.js';
import type { StatusCardModel, UpgradeState } from '../../src/ports/timeline-event.js';

const startedAt = Date.UTC(2024, 4, 1, 13, 50, 37);

function card(overrides: Partial<StatusCardModel> = {}): StatusCardModel {
  return {
    jobId: 'job-7f3a',
    cluster: 'prod-eu',
    from: '1.30',
    to: '1.31',
    state: 'running',
    currentStep: 'Control plane 1.30 → 1.31',
    progress: 'UpdateClusterVersion in progress (4m 10s)',
    startedBy: 'U0REQ',
    startedAt,
    updatedAt: startedAt + 12 * 60_000 + 30_000,
    dryRun: false,
    ...overrides,
  };
}

const STATES: UpgradeState[] = ['queued', 'running', 'waiting-approval', 'paused', 'succeeded', 'failed', 'aborted'];

describe('renderStatusCard', () => {
  it.each(STATES)('renders the %s state within Block Kit limits', (state) => {
    const message = renderStatusCard(card({ state }));
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(message).toMatchSnapshot();
  });

  it('marks a rehearsal REHEARSAL, offers no controls nobody could use, and keeps the real cluster name', () => {
    const message = renderStatusCard(card({ rehearsal: true }));
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(message.blocks?.[0]).toMatchObject({ type: 'header', text: { text: 'EKS upgrade · REHEARSAL · prod-eu 1.30 → 1.31' } });
    const json = JSON.stringify(message.blocks);
    expect(json).toContain('nothing is changed on the real cluster');
    expect(message.blocks?.some((b) => b.type === 'actions')).toBe(false);
    expect(json).not.toContain('pause|resume|abort');
    expect(message.text).toMatch(/^EKS upgrade · REHEARSAL · prod-eu 1\.30 → 1\.31: Running/);
  });

  it('shows the header, who started it, how long it has run and the job id', () => {
    const message = renderStatusCard(card());
    const json = JSON.stringify(message.blocks);
    expect(message.blocks?.[0]).toMatchObject({ type: 'header', text: { text: 'EKS upgrade · prod-eu 1.30 → 1.31' } });
    expect(json).toContain('<@U0REQ>');
    expect(json).toContain('12m 30s');
    expect(json).toContain('`job-7f3a`');
    expect(json).toContain('🔄 Running');
  });

  it('gives a text fallback that says where the upgrade stands', () => {
    const { text } = renderStatusCard(card({ state: 'waiting-approval', progress: undefined }));
    expect(text).toBe(
      'EKS upgrade · prod-eu 1.30 → 1.31: Waiting for approval — Control plane 1.30 → 1.31; started by <@U0REQ>, 12m 30s elapsed',
    );
  });

  it('marks a dry run in the card and in the fallback text', () => {
    const message = renderStatusCard(card({ dryRun: true }));
    expect(message.text.startsWith('[DRY RUN] ')).toBe(true);
    expect(JSON.stringify(message.blocks)).toContain('*DRY RUN*');
    expect(message).toMatchSnapshot();
  });

  it('mentions a user group with the subteam syntax and keeps hours readable', () => {
    const message = renderStatusCard(card({ startedBy: 'S0ONCALL', updatedAt: startedAt + 2 * 3600_000 + 5 * 60_000 }));
    const json = JSON.stringify(message.blocks);
    expect(json).toContain('<!subteam^S0ONCALL>');
    expect(json).toContain('2h 05m');
  });

  it('keeps a very long step name and progress inside the field limits', () => {
    const message = renderStatusCard(card({ currentStep: 'x'.repeat(5000), progress: 'y'.repeat(5000), cluster: 'c'.repeat(300) }));
    expect(checkMessageBlocks(message.blocks)).toEqual([]);
    expect(message.text.length).toBeLessThanOrEqual(4000);
  });

  it('offers Pause and Abort while running, Resume while paused, and only the timeline export once finished', () => {
    const actionIds = (state: UpgradeState, dryRun = false) =>
      (renderStatusCard(card({ state, dryRun })).blocks ?? [])
        .filter((block) => block.type === 'actions')
        .flatMap((block) => (block as { elements: Array<{ action_id: string; value: string }> }).elements)
        .map((button) => `${button.action_id}=${button.value}`);
    const value = JSON.stringify({ jobId: card().jobId });
    const timeline = `job:timeline=${value}`;
    expect(actionIds('running')).toEqual([`job:pause=${value}`, `job:abort=${value}`, timeline]);
    expect(actionIds('waiting-approval')).toEqual([`job:pause=${value}`, `job:abort=${value}`, timeline]);
    expect(actionIds('paused')).toEqual([`job:resume=${value}`, `job:abort=${value}`, timeline]);
    expect(actionIds('running', true)).toEqual([`job:abort=${value}`, timeline]);
    for (const finished of ['succeeded', 'failed', 'aborted'] as const) expect(actionIds(finished)).toEqual([timeline]);
    expect(checkMessageBlocks(renderStatusCard(card({ state: 'paused' })).blocks)).toEqual([]);
  });

  it('gives the buttons a new block_id whenever the card changes, and the same one when it does not', () => {
    const blockId = (model: StatusCardModel) =>
      (renderStatusCard(model).blocks?.find((block) => block.type === 'actions') as { block_id?: string } | undefined)?.block_id;
    const first = blockId(card());
    expect(first).toMatch(/^job:job-7f3a:/);
    expect(first!.length).toBeLessThanOrEqual(255);
    expect(blockId(card())).toBe(first);
    expect(blockId(card({ progress: 'UpdateClusterVersion in progress (5m 10s)' }))).not.toBe(first);
    expect(blockId(card({ updatedAt: card().updatedAt + 60_000 }))).not.toBe(first);
    expect(blockId(card({ state: 'paused' }))).not.toBe(first);
  });
});
