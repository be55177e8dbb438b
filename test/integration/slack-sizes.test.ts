import { LogLevel, WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim';
import { auditCommand } from '../../commands/audit.js';
import type { CommandContext } from '../../commands/routing/command-context.js';
import { renderHelp } from '../../commands/help.js';
import { waiversCommand } from '../../commands/waivers.js';
import type { ClusterConfig } from '../../src/config/clusters-config.js';
import { describeBlockedPool, noteBlocked, type BlockedBoard } from '../../src/planning/workloads/blocked-nodes.js';
import { noticeOf, type NoticeLookup } from '../../src/planning/workloads/disruption-notices.js';
import type { AuditEntry } from '../../src/ports/audit-port.js';
import type { BotDeps } from '../../src/ports/bot-deps.js';
import type { KubeObject } from '../../src/ports/kube-port.js';
import type { RolloutRequest } from '../../src/ports/rollout-control.js';
import type { SlackMessage } from '../../src/ports/slack/slack-message.js';
import type { Waiver } from '../../src/waivers/model/waiver.js';
import type { WaiverStore } from '../../src/waivers/model/waiver-store.js';
import { buildClusterStatus } from '../../src/report/cluster-status.js';
import { buildDigestRow } from '../../src/report/digest.js';
import { renderDigestMessage } from '../../src/report/blocks/render-digest-blocks.js';
import { renderRolloutGate, renderRolloutParent, type RolloutMessages } from '../../src/report/blocks/render-rollout-messages.js';
import { renderStatusMessages } from '../../src/report/blocks/render-status-blocks.js';
import { renderStepMessage } from '../../src/report/blocks/render-step-message.js';
import { renderWaiverCard } from '../../src/report/blocks/render-waiver-card.js';
import { healthySnapshot, NOW } from '../unit/check-snapshot-fixture.js';

// The sizes production will see, each rendered by the product and posted to the fake Slack over HTTP, which
// refuses what Slack refuses (docs/slack-limits.md). Rate limits are off: this file is about sizes, and
// fake-slack-rate-limits.test.ts keeps them on. Names are 100 characters, the longest a team will pick.
let slack: FakeSlack;
let client: WebClient;
const CHANNEL = 'C0SIZES';

beforeAll(async () => {
  slack = await startFakeSlack({ signingSecret: 'sizes-secret', rateLimits: 'off', log: () => undefined });
  // Retries for the transport only (rate limits are off, and a refusal is an answer, never retried): rendering 500
  // clusters on a busy machine can outlast the server's keep-alive, and the next post then meets a reset socket.
  client = new WebClient('xoxb-sizes', { slackApiUrl: slack.apiUrl, logLevel: LogLevel.ERROR, retryConfig: { retries: 2, factor: 1, minTimeout: 10, maxTimeout: 10 } });
});
afterAll(async () => {
  await slack.close();
});

const longName = (i: number) => `prod-${String(i).padStart(4, '0')}-`.padEnd(100, 'abcdefghij');
const names = (count: number) => Array.from({ length: count }, (_, i) => longName(i));
const tricky = (length: number) => '<&>'.repeat(Math.ceil(length / 3)).slice(0, length);

/** Posts a message; Slack's answer must be ok with no warning. Returns the ts. */
async function post(message: SlackMessage, threadTs?: string): Promise<string> {
  const before = slack.warnings.length;
  const answer = await client.chat.postMessage({ channel: CHANNEL, text: message.text, blocks: message.blocks, ...(threadTs ? { thread_ts: threadTs } : {}) });
  expect(answer.ok).toBe(true);
  expect(slack.warnings.slice(before)).toEqual([]);
  return answer.ts!;
}

async function postPaged(messages: RolloutMessages): Promise<string> {
  const ts = await post(messages.first);
  for (const followUp of messages.followUps) await post(followUp, ts);
  return [messages.first, ...messages.followUps].map((m) => JSON.stringify(m.blocks)).join('\n');
}

const request = (clusters: string[]): RolloutRequest => ({
  to: '1.31',
  waves: [{ globs: ['prod-*'], clusters }],
  soakMs: 24 * 3600_000,
  maxParallel: 5,
  requestedBy: 'U0REQ',
  channel: CHANNEL,
});

describe('what the bot posts at production sizes is accepted by Slack', () => {
  it.each([200, 500])('the rollout parent and gate of a %i-cluster wave: every cluster shown, nothing refused', async (count) => {
    const clusters = names(count);
    const parent = await postPaged(renderRolloutParent('r1234567', request(clusters)));
    const rollout = { id: 'r1234567', wave: 0, waves: request(clusters).waves, maxParallel: 5 };
    const gate = renderRolloutGate(rollout, clusters.map((cluster) => ({ cluster, summary: '1.30 → 1.31: 7 steps, 1 h 10 min, 0 blocking findings', planned: true })));
    expect(JSON.stringify(gate.first.blocks)).toContain('fleet:rollout');
    expect(gate.followUps.length).toBeGreaterThan(0);
    const posted = await postPaged(gate);
    for (const cluster of clusters) {
      expect(parent).toContain(cluster);
      expect(posted).toContain(cluster);
    }
  });

  it('status --all and the digest of 500 clusters', async () => {
    const statuses = names(500).map((name) => ({ ...buildClusterStatus(healthySnapshot()), name }));
    const pages = renderStatusMessages(statuses, { maxMessages: 4 });
    expect(pages.length).toBeLessThanOrEqual(4);
    for (const page of pages) await post(page);
    expect(JSON.stringify(pages.at(-1)!.blocks)).toMatch(/more clusters?/);
    const rows = names(500).map((name) => {
      const snapshot = { ...healthySnapshot(), name };
      return buildDigestRow(snapshot, { ...buildClusterStatus(snapshot), name }, undefined, NOW);
    });
    await post(renderDigestMessage(rows, { at: NOW, timezone: 'Europe/Berlin', trigger: 'scheduled 0 9 * * MON (Europe/Berlin)' }));
  });

  it('help', async () => {
    const help = renderHelp();
    expect(help.text.length).toBeLessThanOrEqual(4000);
    await post(help);
  });

  it('audit with 1,000 records, reasons full of <&>', async () => {
    const entries: AuditEntry[] = Array.from({ length: 1000 }, (_, i) => ({
      at: NOW - i * 60_000, cluster: longName(1), user: 'U0APP', action: 'force', outcome: 'accepted', via: 'button', job: `job-${i}`, gate: 'cp', reason: tricky(200),
    }));
    const replies: SlackMessage[] = [];
    const deps = { audit: { read: async (_cluster: string, opts: { limit: number }) => entries.slice(0, opts.limit) } } as unknown as BotDeps;
    await auditCommand({ args: [longName(1)], userId: 'U0APP', channelId: CHANNEL, deps, respond: async (reply) => void replies.push(reply) } as CommandContext);
    expect(replies).toHaveLength(1);
    for (const reply of replies) await post(reply);
  });

  it('50 waivers with 1,000-character reasons full of <&>, each card and the waivers list', async () => {
    const cluster = longName(7);
    const waivers: Waiver[] = Array.from({ length: 50 }, (_, i) => ({
      id: `w${String(i).padStart(6, '0')}`, cluster, code: 'K8S004', resource: `deployment/${'n'.repeat(60)}/${'d'.repeat(60)}-${i}`,
      reason: tricky(1000), expiresAt: NOW + 14 * 86_400_000, requestedBy: 'U0REQ', requestedAt: NOW - i, state: i % 3 === 0 ? 'active' : 'pending',
      ...(i % 3 === 0 ? { approvedBy: 'U0APP', approvedAt: NOW } : {}), source: 'slack',
    }));
    // Each card as it is posted when the waiver is asked for, with the finding's title.
    for (const waiver of waivers.slice(0, 5)) {
      const card = renderWaiverCard(waiver, NOW, `Deployment ${'x'.repeat(200)} has a single replica`);
      expect(JSON.stringify(card.blocks)).toContain('&lt;&amp;&gt;'.repeat(50));
      await post(card);
    }
    const store = {
      list: async () => waivers,
      audit: async (id: string) => [{ at: NOW, by: 'U0REQ', action: 'requested', note: id }],
    } as unknown as WaiverStore;
    const config: ClusterConfig = {
      name: cluster, region: 'eu-west-1', channels: [CHANNEL], requesters: [], approvers: [], twoPersonRule: false,
      karpenter: { upgradeBudget: '10%' }, nodegroups: {}, addons: { resolveConflicts: 'OVERWRITE' }, abortOnGateTimeout: false,
      waivers: Array.from({ length: 12 }, (_, i) => ({ code: 'K8S004', resource: `deployment/apps/app-${i}`, reason: tricky(1000), expires: '2099-01-01', approvedBy: 'U0APP' })),
    };
    const deps = { config: { clusters: [config] }, clock: { now: () => NOW }, waivers: store } as unknown as BotDeps;
    const replies: SlackMessage[] = [];
    await waiversCommand({ args: [], userId: 'U0APP', channelId: CHANNEL, deps, respond: async (reply) => void replies.push(reply) } as CommandContext);
    expect(replies.length).toBeGreaterThan(1);
    expect(replies.length).toBeLessThanOrEqual(4);
    for (const reply of replies) await post(reply);
    const all = replies.map((reply) => JSON.stringify(reply.blocks)).join('\n');
    expect(all).toMatch(/more waivers?|older waivers/);
  });

  it('a blocked-nodes message with 200 PDBs', async () => {
    const at = NOW;
    const lookup: NoticeLookup = { pools: new Set(['default']), since: at, poolOfNode: () => 'default', poolOfClaim: () => 'default', nodeOfClaim: () => undefined };
    const board: BlockedBoard = new Map();
    const pdbs = Array.from({ length: 200 }, (_, i) => `apps/${'p'.repeat(40)}-pdb-${i}`).join(' ');
    for (let i = 0; i < 200; i++) {
      const node = `ip-10-0-${Math.floor(i / 250)}-${i}.eu-west-1.compute.internal`;
      const event: KubeObject = {
        metadata: { name: `${node}.${i}`, namespace: 'default' }, involvedObject: { kind: 'Node', name: node }, reason: 'DisruptionBlocked',
        message: `Pdb prevents pod evictions (PodDisruptionBudget=[${pdbs}])`, source: { component: 'karpenter' }, lastTimestamp: new Date(at + 60_000).toISOString(),
      };
      noteBlocked(board, noticeOf(event, lookup)!, Array.from({ length: 20 }, (_, p) => `apps/pod-${i}-${p}`), at + i);
    }
    const message = renderStepMessage({ step: 'karpenter:default', title: 'Blocked disruptions in NodePool default', shows: 'board', startedAt: at, at: at + 600_000, state: 'running', progress: describeBlockedPool('default', board, 200, 5) });
    await post(message);
  });
});
