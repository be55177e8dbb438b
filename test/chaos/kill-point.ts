import type { KubeObject } from '../../src/ports/kube-port.js';
import { startE2eStack, type E2eStack, type SimCall } from '../support/e2e-stack.js';
import { answerGatesUntilSummary, readStepMessage, repliesOf, statusCard, stepMessagesOf, type GateAnswer, type OpenGate } from '../support/e2e-thread.js';
import { startWorkerChild, type WorkerChild } from '../support/e2e-worker.js';

/**
 * One kill point of the chaos suite: the web role in this process, a worker in a child process that SIGKILLs
 * itself at the point (kill-switch.ts) or is killed from outside when the simulated world reaches it, then a
 * fresh worker. Returns figures instead of asserting, so `npm run chaos` can print a table and the short variant
 * in `npm test` can assert on them.
 */
export interface KillPoint {
  name: string;
  scenario: string;
  cluster: string;
  to: string;
  speed?: number;
  /** KILL_AT for the first worker (kill-switch.ts)… */
  killAt?: string;
  /** …or a watcher that kills the worker from outside once the world is at the point. */
  watch?(stack: E2eStack, kill: (moment: string) => void): () => void;
  /** Runs after the kill, before the survivor starts (e.g. Slack comes back). */
  beforeRestart?(stack: E2eStack): void;
  /**
   * Two workers on the queue, as deployed: the second starts once the first holds the job and stands by; when the
   * first dies it must take the job over by itself (BullMQ's stalled-job check), with no restart from the test.
   * The web role is asked `jobs` every 200 ms throughout, and its slowest ack is reported.
   */
  standby?: boolean;
}

export interface KillFigures {
  point: string;
  killedAt?: string;
  completed: boolean;
  repeatedCalls: string[];
  duplicatedPosts: string[];
  lostPosts: string[];
  budgetsRestored: boolean | undefined;
  /** With standby: seconds from the kill to the standby worker's first thread post. */
  takeoverSeconds?: number;
  /** With standby: the slowest ack of the web role while the worker died and was replaced. */
  maxAckMs?: number;
  error?: string;
  seconds: number;
}

const CHANNEL = 'C0OPS';
const FORCE_REASON = 'findings reviewed by the platform team before the drill';

/**
 * The clusters.yaml entry the drills run under. The workshop's node groups get what its own end-to-end test gives them
 * (blue/green for blue-mng, the custom-AMI group's AMI source), so no gate waits for an operator to edit the file.
 */
export function clustersFor(cluster: string) {
  const workshop = cluster === 'eksworkshop-eksctl'
    ? { nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } } }
    : {};
  return [{ name: cluster, region: 'us-west-2', channels: [CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'], twoPersonRule: true, karpenter: { upgradeBudget: '1' }, ...workshop }];
}

/**
 * How the drills' approver answers a gate, as a person at the card would (and as the workshop's end-to-end test
 * does): the safe remedy when the card offers one (the workshop's orders-pdb blocks blue-mng's drain: scale orders
 * to 2), else Continue, else Force with a reason. Continue on a blocked drain means "keep waiting": the PDB never
 * lets go, so a drill answering Continue there waits for the bot to offer the choice again (DRAIN_RECHECK, 5 minutes
 * on the bot's clock) for ever.
 */
export function answerAsOperator(reason: string): (gate: OpenGate) => GateAnswer {
  return (gate) =>
    gate.actions.includes('gate:remedy') ? { action: 'remedy' }
    : gate.actions.includes('gate:continue') ? { action: 'continue' }
    : { action: 'force', reason };
}

/** "Operation target" pairs that the simulator accepted more than once. */
export function repeatedCalls(calls: SimCall[]): string[] {
  const seen = new Map<string, number>();
  for (const call of calls) seen.set(`${call.operation} ${call.target ?? call.cluster}`, (seen.get(`${call.operation} ${call.target ?? call.cluster}`) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} ×${n}`);
}

/** Kills as soon as the simulated world says so (polled: the world changes without telling anyone). */
export function pollWorld(check: (stack: E2eStack) => string | undefined) {
  return (stack: E2eStack, kill: (moment: string) => void) => {
    const timer = setInterval(() => {
      const moment = check(stack);
      if (moment) {
        clearInterval(timer);
        kill(moment);
      }
    }, 10);
    return () => clearInterval(timer);
  };
}

export function killOnKube(cluster: string, moment: (resource: string, object: KubeObject) => string | undefined) {
  return (stack: E2eStack, kill: (moment: string) => void) => {
    let done = false;
    return stack.sim.world.kube(cluster)!.subscribe((event) => {
      const at = event.type === 'DELETED' ? undefined : moment(event.resource, event.object);
      if (at && !done) {
        done = true;
        kill(at);
      }
    });
  };
}

const budgetsOf = (stack: E2eStack, cluster: string) =>
  (stack.sim.world.kube(cluster)?.list('nodepools') ?? []).map((pool) => `${pool.metadata.name}=${JSON.stringify(pool.spec?.disruption?.budgets)}`).sort();

export async function runKillPoint(point: KillPoint): Promise<KillFigures> {
  const started = Date.now();
  const clusters = clustersFor(point.cluster);
  const stack = await startE2eStack({ scenario: point.scenario, speed: point.speed ?? 100, role: 'web', clusters });
  const figures: KillFigures = { point: point.name, completed: false, repeatedCalls: [], duplicatedPosts: [], lostPosts: [], budgetsRestored: undefined, seconds: 0 };
  const budgetsBefore = budgetsOf(stack, point.cluster);
  const workers: WorkerChild[] = [];
  let stopWatching = () => {};
  try {
    workers.push(await startWorkerChild(stack, clusters, { killAt: point.killAt }));
    const first = workers[0];
    const killed = new Promise<void>((resolve) => {
      first.proc.once('exit', () => resolve());
      if (point.watch) {
        stopWatching = point.watch(stack, (moment) => {
          first.proc.kill('SIGKILL');
          figures.killedAt = moment;
        });
      }
    });
    await stack.fake.sendSlashCommand({ text: `start ${point.cluster} --to ${point.to}`, userId: 'U0REQ', channelId: CHANNEL });
    let probing = false;
    if (point.standby) {
      await stack.fake.waitFor((f) => statusCard(f, CHANNEL), { timeoutMs: 30_000 });
      workers.push(await startWorkerChild(stack, clusters));
      probing = true;
      figures.maxAckMs = 0;
      void (async () => {
        while (probing) {
          const ack = await stack.fake.sendSlashCommand({ text: `jobs ${point.cluster}`, userId: 'U0APP', channelId: CHANNEL });
          figures.maxAckMs = Math.max(figures.maxAckMs ?? 0, ack.status === 200 ? ack.ackMs : 99_999);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
    }
    const driving = answerGatesUntilSummary(stack.fake, {
      channel: CHANNEL,
      approver: 'U0APP',
      timeoutMs: 300_000,
      decide: answerAsOperator(FORCE_REASON),
    });
    driving.catch(() => undefined);
    await Promise.race([killed, driving.then(() => Promise.reject(new Error('the upgrade finished before the worker died')))]);
    figures.killedAt ??= point.killAt;
    point.beforeRestart?.(stack);
    const survivorStartedAt = Date.now();
    if (point.standby) {
      const before = repliesOf(stack.fake, CHANNEL).length;
      await stack.fake.waitFor((f) => repliesOf(f, CHANNEL).length > before, { timeoutMs: 60_000 });
      figures.takeoverSeconds = Math.round((Date.now() - survivorStartedAt) / 100) / 10;
    } else {
      workers.push(await startWorkerChild(stack, clusters));
    }

    const { summary } = await driving;
    await stack.fake.waitFor((f) => /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? '') && f.files().some((file) => file.text.length > 0), { timeoutMs: 30_000 });
    probing = false;
    figures.completed = /✅ Succeeded/.test(summary.text) && stack.sim.world.cluster(point.cluster)?.version === point.to;
    figures.repeatedCalls = repeatedCalls(await stack.acceptedCalls());

    // Posts: every step has exactly one message, edited to its end. Other replies are delivered at least once across
    // a crash, so the one post the killed worker had in flight may come twice: that one is allowed.
    const replies = repliesOf(stack.fake, CHANNEL);
    const inFlight = replies.filter((reply) => reply.postedAt < survivorStartedAt).at(-1)?.text;
    const lines = replies.filter((reply) => !stepMessagesOf(stack.fake, CHANNEL).includes(reply)).map((reply) => reply.text);
    // Other replies repeated beyond the in-flight one: reported as duplicates only when a step-like reply repeats.
    figures.duplicatedPosts = lines.filter((text, i) => lines.indexOf(text) !== i && text !== inFlight && /^(▶️|✅|❌)/u.test(text));
    const steps = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m));
    const titles = steps.map((view) => view?.title ?? '?');
    figures.duplicatedPosts.push(...titles.filter((title, i) => titles.indexOf(title) !== i).map((title) => `step message ${title}`));
    figures.lostPosts = steps.filter((view) => view?.state !== 'finished').map((view) => `${view?.title ?? '?'} never shown finished`);
    const topLevel = stack.fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage');
    if (topLevel.length !== 1) figures.duplicatedPosts.push(`${topLevel.length} status cards`);
    if (stack.fake.files().length !== 1) figures.duplicatedPosts.push(`${stack.fake.files().length} timeline files`);
    figures.budgetsRestored = budgetsBefore.length === 0 ? undefined : JSON.stringify(budgetsOf(stack, point.cluster)) === JSON.stringify(budgetsBefore);
  } catch (error) {
    figures.error = (error as Error).message.split('\n')[0];
  } finally {
    stopWatching();
    for (const worker of workers) await worker.stop(3_000);
    await stack.close();
    figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  }
  return figures;
}
