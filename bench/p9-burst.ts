import type { BenchContext, Figure } from './kit/figures.js';

const GOAL = 'every job once, every thread correct, a killed worker loses nothing';

/**
 * P9 (issue 31 item 3, long form): `BENCH_P9_WEBS` web processes (2) and `BENCH_P9_WORKERS` worker processes (4) on
 * one queue take a burst of `BENCH_P9_UPGRADES` upgrades (200) on the `fleet` scenario; one worker is SIGKILLed
 * once control planes are updating. Met when every upgrade succeeds at its target, the simulator accepted one
 * UpdateClusterVersion per cluster and no mutating call twice, and every thread has one status card and each
 * step's message once, finished. The short form (2 web, 3 workers, 20) runs in `npm test`.
 */
export async function p9Burst(ctx: BenchContext): Promise<Figure[]> {
  // The e2e stack reads the Redis it uses (and removes its keys from) from REDIS_URL when its module loads.
  process.env.REDIS_URL = ctx.redisUrl;
  const { runBurst } = await import('../test/support/burst.js');
  const upgrades = Number(process.env.BENCH_P9_UPGRADES ?? 200);
  const webs = Number(process.env.BENCH_P9_WEBS ?? 2);
  const workers = Number(process.env.BENCH_P9_WORKERS ?? 4);
  const f = await runBurst({ upgrades, webs, workers, timeoutMs: Number(process.env.BENCH_P9_TIMEOUT_S ?? 1_200) * 1000 });
  const problems = [...f.notOnce.map((x) => `UpdateClusterVersion ${x}`), ...f.repeatedCalls, ...f.doubled, ...f.unfinished.map((x) => `unfinished ${x}`)];
  const met = f.succeeded === f.upgrades && problems.length === 0;
  const value = `${f.succeeded}/${f.upgrades} succeeded in ${f.seconds} s (${webs} web, ${workers} workers, one killed at ${f.killedAt ?? '—'}); `
    + (problems.length === 0 ? 'each UpdateClusterVersion once, nothing doubled or lost' : `${problems.length} problems: ${problems.slice(0, 3).join('; ')}`);
  return [{ id: 'P9', name: `burst of ${upgrades} upgrades, several workers`, value, goal: GOAL, baseline: '—', met }];
}
