import type { FakeSlack } from '@eks-upgrade-bot/sim';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { createLogger } from '../../src/log/logger.js';
import { E2E_CREDENTIALS, startE2eStack, type E2eStack } from './e2e-stack.js';
import { answerGate, openGateOf, readStepMessage, statusCard } from './e2e-thread.js';
import { startWorkerChild, type WorkerChild } from './e2e-worker.js';
import { until } from './until.js';

/**
 * Issue 31 item 3, a burst shared by several processes: W web processes (the e2e stack's own and more `startBot`
 * ROLE=web on the same queue prefix, the fake Slack's requests spread over them in turn) and K worker processes take
 * N upgrades on the generated `fleet` scenario at once; one worker is SIGKILLed mid-burst. Returns what a user would
 * check: every cluster at its target, the simulator's count of UpdateClusterVersion per cluster, threads and their
 * step messages. The short form runs in `npm test` (test/e2e/burst-several-workers.test.ts), the long one is P9 in
 * `npm run bench`.
 */
export const BURST_CHANNEL = 'C0OPS';
const ENVIRONMENTS = ['prod', 'dev', 'staging'];
const REGIONS = ['us-west-2', 'us-east-1', 'eu-west-1'];
const VERSIONS = ['1.29', '1.30', '1.31', '1.32', '1.33'];

export interface BurstTarget {
  name: string;
  region: string;
  to: string;
}

/**
 * The first `count` clusters of a fleet of `fleetSize` that can be upgraded as they are: the scenario makes every
 * 10th unreachable, every 13th FAILED and every 7th run a node group two minors behind (src/sim/scenario/fleet-scenario.ts).
 */
export function burstTargets(count: number): { fleetSize: number; targets: BurstTarget[] } {
  const targets: BurstTarget[] = [];
  let index = 0;
  while (targets.length < count) {
    index += 1;
    if (index % 10 === 0 || index % 13 === 0 || index % 7 === 0) continue;
    const minor = Number(VERSIONS[index % VERSIONS.length]!.split('.')[1]);
    targets.push({ name: `${ENVIRONMENTS[index % 3]}-${String(index).padStart(3, '0')}`, region: REGIONS[index % 3]!, to: `1.${minor + 1}` });
  }
  return { fleetSize: index, targets };
}

export interface BurstFigures {
  upgrades: number;
  succeeded: number;
  /** Clusters whose UpdateClusterVersion the simulator accepted other than exactly once. */
  notOnce: string[];
  /** Mutating calls the simulator accepted more than once for the same cluster and target. */
  repeatedCalls: string[];
  /** Status cards per cluster other than one, and step messages posted twice in a thread. */
  doubled: string[];
  /** Step messages never shown finished. */
  unfinished: string[];
  killedAt?: string;
  seconds: number;
}

/** Answers every open gate of every upgrade thread in the channel: Continue where offered, else Force with a reason. */
export function answerAllGates(fake: FakeSlack, channel: string, approver: string): { stop(): void } {
  let running = true;
  const answered = new Set<string>();
  void (async () => {
    while (running) {
      for (const parent of fake.messages(channel)) {
        for (const reply of parent.replies) {
          const gate = openGateOf(reply);
          const id = gate && `${gate.jobId}:${gate.gateId}:${gate.revision}`;
          if (!gate || !id || answered.has(id)) continue;
          answered.add(id);
          const answer = gate.actions.includes('gate:continue') ? { action: 'continue' as const } : { action: 'force' as const, reason: 'reviewed for the burst drill' };
          await answerGate(fake, channel, gate, answer, approver).catch(() => answered.delete(id));
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return { stop: () => void (running = false) };
}

export async function runBurst(opts: { upgrades: number; webs: number; workers: number; timeoutMs: number }): Promise<BurstFigures> {
  const started = Date.now();
  const { fleetSize, targets } = burstTargets(opts.upgrades);
  const clusters = targets.map((t) => ({ name: t.name, region: t.region, channels: [BURST_CHANNEL], requesters: ['U0REQ'], approvers: ['U0APP'] }));
  const stack: E2eStack = await startE2eStack({ scenario: 'fleet', fleetClusters: fleetSize, speed: 600, role: 'web', clusters });
  const webs: RunningBot[] = [];
  const workers: WorkerChild[] = [];
  const gates = answerAllGates(stack.fake, BURST_CHANNEL, 'U0APP');
  const figures: BurstFigures = { upgrades: targets.length, succeeded: 0, notOnce: [], repeatedCalls: [], doubled: [], unfinished: [], seconds: 0 };
  try {
    for (const target of targets) {
      const world = stack.sim.world.cluster(target.name);
      if (world?.region !== target.region) throw new Error(`the fleet scenario has no ${target.name} in ${target.region}: burstTargets no longer matches it`);
    }
    for (let i = 1; i < opts.webs; i++) {
      webs.push(await startBot({
        env: stack.env,
        config: stack.config,
        logger: createLogger({ level: 'silent' }),
        aws: { endpoint: stack.sim.url, credentials: E2E_CREDENTIALS },
        ...(stack.threadIntervalMs !== undefined ? { threadPacing: { minIntervalMs: stack.threadIntervalMs } } : {}),
      }));
    }
    const webUrls = [stack.bot.port, ...webs.map((web) => web.port)].map((port) => `http://127.0.0.1:${port}/slack/events`);
    for (let i = 0; i < opts.workers; i++) workers.push(await startWorkerChild(stack, clusters));

    // The burst: every start in a row, taken in turn by the web processes as a load balancer would spread them (each
    // is acked within Slack's 3 s; the jobs then run side by side).
    for (const [i, target] of targets.entries()) {
      stack.fake.setBotEventsUrl(webUrls[i % webUrls.length]!);
      const ack = await stack.fake.sendSlashCommand({ text: `start ${target.name} --to ${target.to}`, userId: 'U0REQ', channelId: BURST_CHANNEL });
      if (ack.status !== 200) throw new Error(`start ${target.name} was answered ${ack.status}`);
    }
    // Mid-burst: once several control planes are updating, the first worker dies without a word.
    await until(() => targets.filter((t) => stack.sim.world.cluster(t.name)?.status === 'UPDATING').length >= Math.min(3, targets.length), 'several control planes to be UPDATING', opts.timeoutMs);
    figures.killedAt = `${targets.filter((t) => stack.sim.world.cluster(t.name)?.status === 'UPDATING').length} control planes UPDATING`;
    await workers[0]!.kill();

    const ended = (name: string) => /: (Succeeded|Failed|Aborted)/.test(statusCard(stack.fake, BURST_CHANNEL, name)?.text ?? '');
    await until(() => targets.every((t) => ended(t.name)), () => `every upgrade to end (${targets.filter((t) => !ended(t.name)).map((t) => t.name).join(', ')} still running)`, opts.timeoutMs);
    // The thread's last post is the timeline file: once every thread has its own, the outbox has delivered the rest.
    await until(() => stack.fake.files().filter((file) => file.threadTs !== undefined).length >= targets.length, () => `every thread's timeline file (${stack.fake.files().length} of ${targets.length})`, opts.timeoutMs);

    Object.assign(figures, await checkThreads(stack, BURST_CHANNEL, targets));
  } finally {
    gates.stop();
    for (const worker of workers) await worker.stop(3_000).catch(() => undefined);
    for (const web of webs) await web.stop().catch(() => undefined);
    await stack.close();
    figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  }
  return figures;
}

export type ThreadChecks = Pick<BurstFigures, 'succeeded' | 'notOnce' | 'repeatedCalls' | 'doubled' | 'unfinished'>;

/**
 * What a user would check once every upgrade of `targets` in `channel` has ended: each cluster at its target with a
 * status card reading Succeeded, the simulator's one UpdateClusterVersion per cluster and no mutating call twice, one
 * status card per cluster, each step's message once and finished.
 */
export async function checkThreads(stack: E2eStack, channel: string, targets: BurstTarget[]): Promise<ThreadChecks> {
  const figures: ThreadChecks = { succeeded: 0, notOnce: [], repeatedCalls: [], doubled: [], unfinished: [] };
  const calls = await stack.acceptedCalls();
  const seen = new Map<string, number>();
  for (const call of calls) seen.set(`${call.operation} ${call.cluster} ${call.target ?? ''}`.trim(), (seen.get(`${call.operation} ${call.cluster} ${call.target ?? ''}`.trim()) ?? 0) + 1);
  figures.repeatedCalls = [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} ×${n}`);
  const updates = new Map<string, number>();
  for (const call of calls) if (call.operation === 'UpdateClusterVersion' && call.cluster) updates.set(call.cluster, (updates.get(call.cluster) ?? 0) + 1);
  const parents = stack.fake.messages(channel).filter((m) => m.source === 'chat.postMessage' && /EKS upgrade · /.test(m.versions[0]?.text ?? m.text));
  for (const target of targets) {
    const cards = parents.filter((m) => m.text.includes(` ${target.name} `));
    const card = cards[0];
    if (cards.length !== 1) figures.doubled.push(`${cards.length} status cards for ${target.name}`);
    if (!card) continue;
    if (/: Succeeded/.test(card.text) && stack.sim.world.cluster(target.name)?.version === target.to) figures.succeeded += 1;
    const count = updates.get(target.name) ?? 0;
    if (count !== 1) figures.notOnce.push(`${target.name} ×${count}`);
    const steps = card.replies.filter((reply) => String((reply.metadata as { event_payload?: { post_id?: unknown } } | undefined)?.event_payload?.post_id ?? '').startsWith('upsert:')).map((m) => readStepMessage(m));
    const titles = steps.map((view) => view?.title ?? '?');
    if (steps.length === 0) figures.unfinished.push(`${target.name}: no step messages in its thread`);
    figures.doubled.push(...titles.filter((title, i) => titles.indexOf(title) !== i).map((title) => `${target.name}: step message ${title} twice`));
    figures.unfinished.push(...steps.filter((view) => view?.state !== 'finished').map((view) => `${target.name}: ${view?.title ?? '?'} (${view?.state}: ${view?.detail}) [${card.text.slice(0, 80)}]`));
  }
  return figures;
}
