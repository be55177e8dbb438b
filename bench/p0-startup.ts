import { startFakeSlack } from '@eks-upgrade-bot/sim/services';
import { type BenchContext, type Figure, ms } from './kit/figures.js';
import { freshPrefix, median, startBotProcess, startSimProcess, timeCommand } from './kit/processes.js';

/**
 * P0 start-up. The CLI as a user runs it (`node bin/eks-upgrade.js status demo`, the build in dist/) against the
 * simulator, end to end; the bot (`npm start`: bin/eks-upgrade-bot.cjs, ROLE=all) from spawn to its first /healthz 200. Baselines from
 * the same run: Node itself (`node -e 0`) and the same entry points run from the TypeScript sources through tsx (how
 * they started before the build).
 */
const RUNS = Number(process.env.BENCH_P0_RUNS ?? 5);

export async function p0Startup(ctx: BenchContext): Promise<Figure[]> {
  const sim = await startSimProcess(['--scenario', 'demo', '--speed', '60']);
  // The bot asks Slack who it is (auth.test) before it is ready.
  const fake = await startFakeSlack({ signingSecret: 'bench-signing-secret' });
  try {
    const env = { AWS_ENDPOINT_URL: sim.url, AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', CLUSTERS_FILE: '' };
    const times = async (args: string[], runs = RUNS) => {
      const result: number[] = [];
      for (let i = 0; i < runs; i++) {
        const run = await timeCommand(args, env);
        if (run.code !== 0) throw new Error(`${args.join(' ')} exited ${run.code}: ${run.stderr}`);
        result.push(run.ms);
      }
      return result;
    };
    const bot = { simUrl: sim.url, slackApiUrl: fake.apiUrl, signingSecret: 'bench-signing-secret', redisUrl: ctx.redisUrl, clustersYaml: CLUSTERS_YAML };
    const node = await times(['-e', '0']);
    // One untimed run each first: it saves V8's code cache of the fresh build, as a user's first run after npm ci does.
    await times(['bin/eks-upgrade.js', 'status', 'demo'], 1);
    await (await startBotProcess({ ...bot, role: 'all', prefix: freshPrefix('p0') })).stop();
    const cli = await times(['bin/eks-upgrade.js', 'status', 'demo']);
    const fromSources = await times(['--import', 'tsx', '--input-type=module', '-e', "const { runAndExit } = await import('./src/cli/main.ts'); await runAndExit(process.argv.slice(1));", 'status', 'demo'], 3);

    const ready: number[] = [];
    const readyFromSources: number[] = [];
    for (let i = 0; i < 3; i++) {
      const built = await startBotProcess({ ...bot, role: 'all', prefix: freshPrefix('p0') });
      ready.push(built.readyMs);
      await built.stop();
      const dev = await startBotProcess({ ...bot, role: 'all', prefix: freshPrefix('p0'), entry: ['--import', 'tsx', 'src/main.ts'] });
      readyFromSources.push(dev.readyMs);
      await dev.stop();
    }
    return [
      {
        id: 'P0',
        name: `CLI \`status demo\`, end to end (median of ${RUNS}, max)`,
        value: `${ms(median(cli))} (max ${ms(Math.max(...cli))})`,
        goal: '≤ 1000 ms',
        baseline: `node -e 0: ${ms(median(node))}; from sources via tsx: ${ms(median(fromSources))}`,
        met: median(cli) <= 1000,
      },
      {
        id: 'P0',
        name: 'bot ready: spawn → /healthz 200 (median of 3)',
        value: `${ms(median(ready))} (max ${ms(Math.max(...ready))})`,
        goal: '≤ 2000 ms',
        baseline: `from sources via tsx: ${ms(median(readyFromSources))}`,
        met: median(ready) <= 2000,
      },
    ];
  } finally {
    await fake.close();
    await sim.stop();
  }
}

export const CLUSTERS_YAML = 'clusters:\n  - { name: demo, region: us-west-2, channels: [C0BENCH], requesters: [U0REQ], approvers: [U0APP], twoPersonRule: false }\n';
