import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, readStepMessage, repliesOf } from '../support/e2e-thread.js';

/**
 * Issue 17, "the thread, redesigned for reading", at a size where Karpenter blocks many nodes: a Slack-driven
 * 1.30 → 1.31 of the generated `scale` cluster (40 nodes in 2 NodePools, PDBs of maxUnavailable 10%, so drains keep
 * running into them). What the channel sees: no post per blocked node, but one "Blocked disruptions in NodePool …"
 * message per pool, kept in place as nodes get blocked and unblocked, that ends saying how many were blocked; the
 * exported timeline (the complete record) names every one of those nodes in a notice of its own.
 */
const CHANNEL = 'C0SCALE';
let stack: E2eStack;
let summary: FakeMessage;

beforeAll(async () => {
  stack = await startE2eStack({
    scenario: 'scale',
    scale: { nodes: 40, pools: 2 },
    speed: 600,
    pollSeconds: 1,
    clusters: [{ name: 'scale', region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'] }],
  });
  await stack.fake.sendSlashCommand({ text: 'start scale --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
  ({ summary } = await answerGatesUntilSummary(stack.fake, {
    channel: CHANNEL,
    approver: 'U0APP',
    timeoutMs: 240_000,
    decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: 'e2e cluster' }),
  }));
}, 300_000);

afterAll(async () => {
  await stack?.close();
});

describe('a 40-node Karpenter drift with PDB blocks, as the channel sees it', () => {
  it('succeeds, with no post per blocked node', () => {
    expect(summary.text).toMatch(/Succeeded/);
    expect(repliesOf(stack.fake, CHANNEL).filter((m) => /^⚠️ Karpenter cannot/.test(m.versions[0]?.text ?? m.text))).toEqual([]);
  });

  it('keeps one blocked-nodes message per pool, ending with how many nodes were blocked, and the export names every one', async () => {
    const boards = repliesOf(stack.fake, CHANNEL).filter((m) => /Blocked disruptions in NodePool/.test(m.text));
    expect(boards.length).toBeGreaterThanOrEqual(1);
    const titles = boards.map((m) => readStepMessage(m)?.title);
    expect(new Set(titles).size).toBe(boards.length);
    const file = await exportedTimeline();
    const exported = file.split('\n').filter((line) => /^.*Warning: Karpenter cannot (drain|replace) node /.test(line));
    for (const board of boards) {
      const pool = /NodePool ([\w-]+)/.exec(board.text)![1];
      // Posted once and edited in place; how many versions Slack saw depends on the channel's pace (a newer version
      // replaces a queued one, and a short drift may reach Slack in its last version only), so only the last is
      // certain. The versions themselves are asserted in karpenter-step.test.ts.
      const end = readStepMessage(board)!;
      expect(end.state).toBe('finished');
      const blocked = Number(/(\d+) nodes? of NodePool \S+ (?:was|were) blocked during the drift/.exec(end.detail)?.[1]);
      expect(blocked).toBeGreaterThan(0);
      const named = new Set(exported.filter((line) => line.includes(`(NodePool ${pool})`)).map((line) => /node (\S+) \(NodePool/.exec(line)![1]));
      expect(named.size).toBe(blocked);
    }
  });
});

/** The Markdown timeline's text: the file is listed once its upload URL is asked for; its text arrives with the upload that follows. */
function exportedTimeline(): Promise<string> {
  return stack.fake.waitFor((fake) => fake.files().find((f) => f.name.endsWith('.md') && f.text !== '')?.text, { timeoutMs: 30_000 });
}
