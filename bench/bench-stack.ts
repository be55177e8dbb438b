import '../src/log/quiet-node-version-warning.js';
import { randomBytes } from 'node:crypto';
import { parseClustersConfig, type ClustersConfig } from '../src/config/clusters-config.js';
import { parseEnv } from '../src/config/env-config.js';
import { ensureRedis } from '../src/demo/ensure-redis.js';
import { createLogger } from '../src/log/logger.js';
import { type FakeSlack, type SimServer, startFakeSlack, startSimulator } from '@eks-upgrade-bot/sim';
import { startBot } from '../src/start-bot.js';

export interface BenchStack {
  sim: SimServer;
  fake: FakeSlack;
  config: ClustersConfig;
  stop(): Promise<void>;
}

/** The whole bot on the simulator and a fake Slack, as the demo runs it, for benchmarks to drive. */
export async function startBenchStack(options: { scenario: string | object; speed?: number; config: unknown }): Promise<BenchStack> {
  const redis = await ensureRedis();
  const sim = await startSimulator({ scenario: options.scenario, port: 0, speed: options.speed ?? 60 });
  const signingSecret = randomBytes(16).toString('hex');
  const fake = await startFakeSlack({ signingSecret });
  const env = parseEnv({
    SLACK_BOT_TOKEN: 'xoxb-bench',
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: fake.apiUrl,
    REDIS_URL: redis.url,
    PORT: '0',
    LOG_LEVEL: 'silent',
    QUEUE_PREFIX: `eks-upgrade-bench-${randomBytes(4).toString('hex')}`,
    AWS_POLL_SECONDS: '1',
  });
  const config = parseClustersConfig(options.config);
  const bot = await startBot({
    env,
    config,
    logger: createLogger({ level: 'silent' }),
    aws: { endpoint: sim.url, credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } },
  });
  fake.setBotEventsUrl(`http://127.0.0.1:${bot.port}/slack/events`);
  return {
    sim,
    fake,
    config,
    async stop() {
      await bot.stop();
      await fake.close();
      await sim.close();
      await redis.stop();
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export function printRow(label: string, values: Record<string, string | number>): void {
  const cells = Object.entries(values).map(([key, value]) => `${key}=${typeof value === 'number' ? value.toFixed(1) : value}`);
  process.stdout.write(`${label.padEnd(34)} ${cells.join('  ')}\n`);
}
