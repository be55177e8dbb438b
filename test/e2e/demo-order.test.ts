import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { until } from '../support/until.js';

/**
 * Issue 25 item 6: what `npm run demo` prints (the fake Slack's renderConversation) is in the order Slack shows it:
 * the "🚀 Started upgrading…" answer right after the status card, before its thread; in the thread, the gate card
 * before the "✅ approval … approved by" line that answers it.
 */
let stack: E2eStack;
beforeAll(async () => {
  stack = await startE2eStack({ scenario: 'demo', clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] }] });
});
afterAll(async () => stack?.close());

const gateCard = (f: FakeSlack): FakeMessage | undefined =>
  f.messages('C0DEMO').flatMap((m) => m.replies).find((reply) => JSON.stringify(reply.blocks ?? []).includes('"gate:continue"'));

describe('the demo conversation', () => {
  it('prints in the order Slack shows', async () => {
    await stack.fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: 'C0DEMO' });
    const card = await stack.fake.waitFor(gateCard, { timeoutMs: 60_000 });
    await stack.fake.clickButton({ userId: 'U0APP', channelId: 'C0DEMO', messageTs: card.ts, actionId: 'gate:continue' });
    await until(() => stack.sim.world.cluster('demo')?.version === '1.31', 'demo at 1.31', 90_000);
    await stack.fake.waitFor((f) => f.messages('C0DEMO')[0]?.replies.some((reply) => /approval: control plane of demo to 1\.31\* finished/.test(reply.text + JSON.stringify(reply.blocks ?? []))), { timeoutMs: 30_000 });

    const text = stack.fake.renderConversation();
    const started = text.indexOf('Started upgrading demo from 1.30 to 1.31');
    const firstReply = text.indexOf('│ ');
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThan(firstReply);
    const gate = text.indexOf('UPGRADE THE CONTROL PLANE OF DEMO TO 1.31?');
    const approval = text.indexOf('approval: control plane of demo to 1.31* finished');
    expect(gate).toBeGreaterThan(0);
    expect(approval).toBeGreaterThan(gate);
    expect(text.match(/approval: control plane of demo to 1\.31\*/g)).toHaveLength(1);
  });
});
