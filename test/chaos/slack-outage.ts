import { startE2eStack } from '../support/e2e-stack.js';
import { answerGate, answerGatesUntilSummary, openGates, readStepMessage, statusCard, stepMessagesOf } from '../support/e2e-thread.js';
import { clustersFor } from './kill-point.js';

/**
 * Slack down for minutes in the middle of an upgrade: right after the control-plane gate is approved, every thread
 * post and edit is answered 429 (Retry-After 5 s) for the first half of the outage and 503 for the second. The
 * upgrade must not wait for Slack (its AWS work ends while Slack is still down), and once Slack is back every post
 * arrives, once, in order.
 */
export interface SlackOutageFigures {
  outageSeconds: number;
  /** Seconds into the outage at which the node group reached the target (the upgrade's own pace). */
  awsDoneAfterSeconds?: number;
  refusedByFakeSlack: number;
  completed: boolean;
  duplicatedPosts: string[];
  outOfOrder: string[];
  error?: string;
}

const CHANNEL = 'C0OPS';
const OUTAGE_METHODS = ['chat.postMessage', 'chat.update', 'files.getUploadURLExternal', 'files.completeUploadExternal'];

export async function runSlackOutage(outageSeconds: number): Promise<SlackOutageFigures> {
  const figures: SlackOutageFigures = { outageSeconds, refusedByFakeSlack: 0, completed: false, duplicatedPosts: [], outOfOrder: [] };
  // Slow enough that the upgrade's AWS work (10 simulated minutes of control plane, then add-ons and the node group)
  // takes a good part of the outage, fast enough to end inside it.
  const stack = await startE2eStack({ scenario: 'demo', speed: 10, clusters: clustersFor('demo') });
  try {
    const { fake, sim } = stack;
    await fake.sendSlashCommand({ text: 'start demo --to 1.31', userId: 'U0REQ', channelId: CHANNEL });
    const gate = await fake.waitFor((f) => openGates(f, CHANNEL).find((g) => g.gateId === 'h1-control-plane'), { timeoutMs: 60_000 });
    await answerGate(fake, CHANNEL, gate, { action: 'continue' }, 'U0APP');
    const start = Date.now();
    fake.setOutage({ methods: OUTAGE_METHODS, status: 429, retryAfter: 5 });
    const ng = () => sim.world.cluster('demo')?.nodegroups.get('demo-ng');
    while (Date.now() - start < outageSeconds * 1000) {
      if (Date.now() - start >= (outageSeconds * 1000) / 2) fake.setOutage({ methods: OUTAGE_METHODS, status: 503 });
      if (figures.awsDoneAfterSeconds === undefined && ng()?.version === '1.31' && ng()?.status === 'ACTIVE') {
        figures.awsDoneAfterSeconds = Math.round((Date.now() - start) / 1000);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    figures.refusedByFakeSlack = fake.calls.filter((call) => OUTAGE_METHODS.includes(call.method) && (call.status === 429 || call.status === 503)).length;
    fake.clearOutage();
    const { summary } = await answerGatesUntilSummary(fake, { channel: CHANNEL, approver: 'U0APP', timeoutMs: 180_000, alreadyAnswered: ['h1-control-plane:1'], decide: () => ({ action: 'continue' }) });
    await fake.waitFor((f) => /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? '') && f.files().length === 1 && f.files()[0].text.length > 0, { timeoutMs: 60_000 });
    figures.completed = /✅ Succeeded/.test(summary.text);
    // One message per step, edited in place: none twice, each ended ✅, in the order the job ran the steps.
    const steps = stepMessagesOf(fake, CHANNEL).map((m) => readStepMessage(m));
    const titles = steps.map((v) => v?.title ?? '?');
    figures.duplicatedPosts = titles.filter((title, i) => titles.indexOf(title) !== i);
    for (const view of steps) if (view?.state !== 'finished') figures.outOfOrder.push(`${view?.title ?? '?'} not finished`);
    const file = fake.files()[0];
    const ran = [...(file?.text ?? '').matchAll(/^- .* UTC — Started \*\*(.+?)\*\*/gm)].map((m) => m[1]);
    if (JSON.stringify(titles) !== JSON.stringify(ran)) figures.outOfOrder.push(`step messages not in the order the steps ran: thread [${titles.join(', ')}], timeline [${ran.join(', ')}]`);
  } catch (error) {
    figures.error = (error as Error).message.split('\n')[0];
  } finally {
    await stack.close();
  }
  return figures;
}
