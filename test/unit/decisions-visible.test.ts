import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeSlack } from '@eks-upgrade-bot/sim';
import { WebClient } from '@slack/web-api';
import { summaryEvent } from '../../jobs/worker/finish-job.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { authorizeGate } from '../../src/domain/authorize.js';
import { createLogger } from '../../src/log/logger.js';
import type { UpgradeJobData } from '../../src/planning/upgrade-job-data.js';
import type { TimelineEvent } from '../../src/ports/timeline-event.js';
import { renderStatusCard } from '../../src/report/blocks/render-status-card.js';
import { renderTimelineEvent } from '../../src/report/blocks/render-timeline-event.js';
import { exportTimeline } from '../../src/store/export-timeline.js';

/** Issue 25 item 3: decisions are visible where people look — the 🏁 card, the exported file, refusals. */
function job(): UpgradeJobData {
  return {
    schema: 2, jobId: 'j1', cluster: 'demo', region: 'us-west-2', from: '1.30', to: '1.31', hops: ['1.31'], requestedBy: 'U0REQ', channel: 'C0', thread: { channel: 'C0', ts: '1.0' },
    dryRun: false, startedAt: 0, state: 'succeeded', stepIndex: 4, pauseSeq: 0, retries: {}, updates: {}, acted: {},
    steps: [
      { id: 'h1-preflight', kind: 'preflight', hop: 1, from: '1.30', to: '1.31', title: 'preflight for 1.31' },
      { id: 'h1-gate', kind: 'gate', hop: 1, from: '1.30', to: '1.31', title: 'approval: control plane of demo to 1.31' },
      { id: 'h1-fargate', kind: 'fargate', hop: 1, from: '1.30', to: '1.31', title: 'Fargate pods to 1.31' },
    ],
    stepRuns: {
      'h1-preflight': { startedAt: 0, finishedAt: 1, outcome: 'done', summary: '1 blocking finding(s) forced by <@U0APP>: the PDB is ours, we drain by hand' },
      'h1-gate': { startedAt: 1, finishedAt: 2, outcome: 'done', summary: 'approved by <@U0APP>' },
      'h1-fargate': { startedAt: 2, finishedAt: 3, outcome: 'skipped', summary: 'no Fargate nodes' },
    },
    stepState: { 'h1-preflight': { waived: [{ code: 'K8S004', resource: 'deployment/orders/orders', by: 'U0SRE', until: '2026-12-31', reason: 'one replica on purpose in staging' }] } },
  };
}

describe('the 🏁 summary card', () => {
  it('names every Force, approval, waiver applied and step skipped, with who and why, mentions outside the code block', () => {
    const message = renderTimelineEvent(summaryEvent(job(), 5));
    const texts = (message.blocks ?? []).map((block) => JSON.stringify(block));
    const table = texts.find((text) => text.includes('```'))!;
    expect(table).not.toContain('<@');
    expect(table).toContain('(see Decisions)');
    const decisions = texts.find((text) => text.includes('*Decisions*'))!;
    expect(decisions).not.toContain('```');
    expect(decisions).toContain('preflight for 1.31: 1 blocking finding(s) forced by <@U0APP>: the PDB is ours, we drain by hand');
    expect(decisions).toContain('approval: control plane of demo to 1.31: approved by <@U0APP>');
    expect(decisions).toContain('Skipped Fargate pods to 1.31: no Fargate nodes');
    expect(decisions).toContain('Waiver applied: K8S004 on deployment/orders/orders, approved by <@U0SRE> until 2026-12-31: one replica on purpose in staging');
  });

  it('a finished status card offers no pause|resume|abort', () => {
    const base = { jobId: 'j1', cluster: 'demo', from: '1.30', to: '1.31', currentStep: '', progress: '', startedBy: 'U0REQ', startedAt: 0, updatedAt: 1, dryRun: false };
    for (const state of ['succeeded', 'failed', 'aborted'] as const) expect(JSON.stringify(renderStatusCard({ ...base, state }).blocks)).not.toContain('pause|resume|abort');
    expect(JSON.stringify(renderStatusCard({ ...base, state: 'running' }).blocks)).toContain('pause|resume|abort');
  });
});

describe('the exported timeline', () => {
  it('shows people by name with their ID, names read with users.info from Slack', async () => {
    const fake = await startFakeSlack({ signingSecret: 'decisions-secret', userNames: { U0BOB: 'bob', U0ALICE: 'alice' } });
    try {
      const client = new WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
      // users.info needs users:read, which the manifest keeps.
      expect(readFileSync(join(import.meta.dirname, '../../manifest.yml'), 'utf8')).toMatch(/^\s+- users:read\b/m);
      // users.info as Slack answers it: a name for a user of the workspace, user_not_found for any other ID.
      expect((await client.users.info({ user: 'U0BOB' })).user?.name).toBe('bob');
      await expect(client.users.info({ user: 'U0NOBODY' })).rejects.toMatchObject({ data: { ok: false, error: 'user_not_found' } });
      const gate = { gateId: 'g1', revision: 1, title: 'Upgrade the control plane?', details: [], actions: ['continue', 'abort'] } as never;
      const events: TimelineEvent[] = [
        { kind: 'gate-answered', at: 10, gate, action: 'continue', by: 'U0BOB' },
        { kind: 'note', at: 11, level: 'info', text: 'Paused by <@U0BOB>' },
      ];
      let file = '';
      const thread = {
        uploadMarkdown: async (_thread: unknown, _key: string, _name: string, _title: string, content: string) => void (file = content),
        userName: (id: string) => client.users.info({ user: id }).then((answer) => answer.user?.name, () => undefined),
      };
      const timeline = { read: async () => events.map((event) => ({ event })) };
      await exportTimeline({ timeline, thread } as never, { jobId: 'j1', cluster: 'demo', from: '1.30', to: '1.31', requestedBy: 'U0ALICE', startedAt: 0, thread: { channel: 'C0', ts: '1.0' } }, 'k');
      expect(file).toContain('- Requested by: @alice (U0ALICE)');
      expect(file).toContain('| approved | @bob (U0BOB) |');
      expect(file).toContain('Note: Paused by @bob (U0BOB)');
      expect(file).not.toMatch(/<@|U0ALICE\b(?! ?\))/);
    } finally {
      await fake.close();
    }
  });
});

describe('refusals under the two-person rule', () => {
  it('never list the requester among those who may answer', async () => {
    const strict = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP', 'U0REQ'], twoPersonRule: true }] }).clusters[0];
    const deps = { logger: createLogger({ level: 'silent' }), usergroups: { members: async () => [] } };
    const refusal = await authorizeGate(deps, strict, { requestedBy: 'U0REQ' }, 'U0BYSTANDER', 'continue');
    expect(refusal).toEqual({ allowed: false, reason: 'Only the approvers of demo may answer this gate: <@U0APP>.' });
  });
});
