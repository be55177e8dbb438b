import { randomBytes } from 'node:crypto';
import { startFakeSlack, type FakeSlack } from '@eks-upgrade-bot/sim/services';
import { startAckSender } from './kit/ack-sender.js';
import { type BenchContext, type Figure, ms } from './kit/figures.js';
import { CLUSTERS_YAML } from './p0-startup.js';
import { cpuMsOf, freshPrefix, type Child, pastCodeCacheSave, percentile, startBareBolt, startBotProcess, startSimProcess } from './kit/processes.js';

/**
 * P1 ack latency. Signed `/eks-upgrade` commands (status, plan, help, malformed in turn) from the fake Slack to the
 * bot's web process (ROLE=web; a ROLE=worker process beside it, as deployed, which runs the status and plan the web
 * process hands it through Redis), N in flight at once; the latency is
 * from sending to the HTTP 200 (the ack), as Slack measures it, timed in a sender process of its own (kit/ack-sender.ts,
 * node's http on keep-alive connections), not in this one, which also answers the bot's response_url and
 * chat.postMessage calls. Each row also prints the CPU each process used during the burst: on two cores, a burst is
 * as fast as the machine is free. Baseline: the same commands to a bare Bolt app
 * that only acks, in its own process on the same machine. Goal (issue 30): p50 and p99 each ≤ 1.5 × the baseline's, or
 * the baseline's + 10 ms where that is larger (and far under 3 s).
 */
const LEVELS = (process.env.BENCH_P1_LEVELS ?? '1,50,200').split(',').map(Number);
const TEXTS = ['status demo', 'plan demo --to 1.31', 'help', 'frobnicate demo --to'];

async function burst(fake: FakeSlack, concurrency: number): Promise<{ latencies: number[]; failures: number }> {
  const total = Math.max(100, concurrency * 2);
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const text = TEXTS[next++ % TEXTS.length];
        const result = await fake.sendSlashCommand({ text, userId: 'U0REQ', channelId: 'C0BENCH' });
        if (result.status !== 200) failures++;
        latencies.push(result.ackMs);
      }
    }),
  );
  return { latencies, failures };
}

/** The web process's own count of acks (eks_upgrade_ack_seconds: from the verified request to ack()), all and within 5 ms. */
async function handlerAcks(port: number): Promise<{ count: number; within5ms: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (prefix: string) => Number(text.split('\n').find((line) => line.startsWith(prefix))?.split(' ').pop() ?? NaN);
  return { count: value('eks_upgrade_ack_seconds_count'), within5ms: value('eks_upgrade_ack_seconds_bucket{le="0.005"') };
}

/**
 * CPU milliseconds each process of the bench has used so far (from /proc; this process by process.cpuUsage): what a
 * burst's wall time is made of on two cores, where the bot's web process shares them with its worker, the simulator,
 * the sender and this driver, and bare Bolt only with the sender and the driver.
 */
function cpuOf(processes: Record<string, Child>): () => Record<string, number> {
  return () => {
    const used = process.cpuUsage();
    return { ...Object.fromEntries(Object.entries(processes).map(([name, child]) => [name, cpuMsOf(child.process.pid!)])), driver: (used.user + used.system) / 1000 };
  };
}

function cpuDuring(before: Record<string, number>, after: Record<string, number>, names: string[]): string {
  return names.map((name) => `${name} ${Math.round(after[name] - before[name])}`).join(', ');
}

export async function p1Ack(ctx: BenchContext): Promise<Figure[]> {
  const signingSecret = randomBytes(16).toString('hex');
  // Acks are timed in a process of their own (kit/ack-sender.ts): this one also answers the bot's Slack calls.
  const sender = await startAckSender();
  const fake = await startFakeSlack({ signingSecret, deliver: sender.deliver });
  const sim = await startSimProcess(['--scenario', 'demo', '--speed', '60']);
  const prefix = freshPrefix('p1');
  const common = { simUrl: sim.url, slackApiUrl: fake.apiUrl, signingSecret, redisUrl: ctx.redisUrl, prefix, clustersYaml: CLUSTERS_YAML };
  const [web, worker, bare] = await Promise.all([startBotProcess({ ...common, role: 'web' }), startBotProcess({ ...common, role: 'worker' }), startBareBolt(signingSecret, fake.apiUrl)]);
  const figures: Figure[] = [];
  const cpu = cpuOf({ bare, web, worker, simulator: sim, sender });
  try {
    // Steady state: the first start under the web and worker Deployments' flags saves V8's code cache 5 s in.
    await pastCodeCacheSave(web, worker);
    for (const level of LEVELS) {
      // Warm both (first requests pay for lazy set-up), then measure the baseline and the bot back to back.
      fake.setBotEventsUrl(`http://127.0.0.1:${bare.port}/slack/events`);
      await burst(fake, 1);
      const bareCpu = cpu();
      const bareStart = performance.now();
      const base = await burst(fake, level);
      const bareWall = performance.now() - bareStart;
      const bareAfter = cpu();
      const bareCpuMs = bareAfter.bare - bareCpu.bare;
      fake.setBotEventsUrl(`http://127.0.0.1:${web.port}/slack/events`);
      if (level === LEVELS[0]) await burst(fake, 1);
      const before = await handlerAcks(web.port);
      const botCpu = cpu();
      const botStart = performance.now();
      const bot = await burst(fake, level);
      const botWall = performance.now() - botStart;
      const botAfter = cpu();
      const after = await handlerAcks(web.port);
      // Let the work after the acks (status reads, plans) finish before the next level.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // The web process's CPU per command, over the burst and the 2 s after it, which hold the work after each ack
      // (the hand-off to the workers) and about 20 ms of idling: what a busy burst's p99 is made of. The bare app's
      // is over its burst alone. /proc counts in 10 ms steps, so whole bursts only.
      const webCpuMs = cpu().web - botCpu.web;
      const [p50, p99] = [percentile(bot.latencies, 50), percentile(bot.latencies, 99)];
      const [baseP50, baseP99] = [percentile(base.latencies, 50), percentile(base.latencies, 99)];
      const allowed = (baseline: number) => Math.max(1.5 * baseline, baseline + 10);
      figures.push({
        id: 'P1',
        name: `ack at ${level} concurrent (${bot.latencies.length} commands): p50 / p99`,
        // How much of that the bot's own handler took: parsing before the ack, as its /metrics count it.
        value: `${ms(p50)} / ${ms(p99)}${bot.failures ? `, ${bot.failures} not 200` : ''}; handler acked ${after.within5ms - before.within5ms} of ${after.count - before.count} within 5 ms of receipt; web CPU ${(webCpuMs / bot.latencies.length).toFixed(2)} ms a command (bare Bolt ${(bareCpuMs / base.latencies.length).toFixed(2)}); CPU ms in the burst's ${Math.round(botWall)} ms: ${cpuDuring(botCpu, botAfter, ['web', 'worker', 'simulator', 'sender', 'driver'])} (bare Bolt's ${Math.round(bareWall)} ms: ${cpuDuring(bareCpu, bareAfter, ['bare', 'sender', 'driver'])})`,
        goal: `≤ max(1.5 ×, + 10 ms) baseline = ${ms(allowed(baseP50))} / ${ms(allowed(baseP99))}`,
        baseline: `bare Bolt: ${ms(baseP50)} / ${ms(baseP99)}`,
        met: p50 <= allowed(baseP50) && p99 <= allowed(baseP99) && p99 < 3000 && bot.failures === 0,
      });
    }
  } finally {
    await Promise.all([web.stop(), worker.stop(), bare.stop()]);
    await sim.stop();
    await fake.close();
    await sender.stop();
  }
  return figures;
}
