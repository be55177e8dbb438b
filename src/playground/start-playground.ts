import { randomBytes } from 'node:crypto';
import { startFakeSlack, startSimulator, type FakeSlack, type SimServer } from '@eks-upgrade-bot/sim/services';
import { parseEnv } from '../config/env-config.js';
import { demoRedis } from '../demo/demo-redis.js';
import { createLogger } from '../log/logger.js';
import { startBot } from '../start-bot.js';
import { startPlaygroundHttp } from './playground-http.js';
import { exampleCommands, PLAYGROUND_CHANNEL, PLAYGROUND_USERS, playgroundClustersConfig } from './playground-people.js';

export interface PlaygroundOptions {
  /** Simulator scenario (src/sim/scenarios/<name>.yaml). */
  scenario: string;
  /** Simulated seconds per real second; the page can change it later. */
  speed: number;
  /** Port of the page (0 = any free port). */
  port: number;
  host?: string;
  /** Where Redis answers; default REDIS_URL, else a throwaway redis-server. */
  redisUrl?: string;
  logLevel?: string;
  /** The bot's thread pacing (startBot's `threadPacing`); leave it out to see Slack's real one call per second. */
  threadPacing?: { minIntervalMs?: number };
  /** The bot over Socket Mode (SLACK_APP_TOKEN, no signing secret) instead of HTTP (docs/socket-mode.md). */
  socketMode?: boolean;
}

export interface Playground {
  /** The page. */
  url: string;
  sim: SimServer;
  fake: FakeSlack;
  redisUrl: string;
  /** Prefix of the bot's Redis keys (queue, engine state, outbox). */
  queuePrefix: string;
  close(): Promise<void>;
}

/**
 * The simulator, a Redis, the bot (web + worker in one process, exactly as `npm run demo` runs it), the fake Slack
 * the bot uses as its Web API, and the page's HTTP server in front of the last two. Everything binds to loopback.
 */
export async function startPlayground(options: PlaygroundOptions): Promise<Playground> {
  const cleanups: Array<() => Promise<void>> = [];
  // A fresh prefix: a second playground on the same Redis must not pick up this one's jobs.
  const queuePrefix = `eks-upgrade-playground-${randomBytes(4).toString('hex')}`;
  const close = async () => {
    for (const step of cleanups.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    const redis = await demoRedis(process.env, options.redisUrl);
    cleanups.push(() => redis.stop());
    // After the bot has stopped (cleanups run in reverse): the playground leaves nothing in a Redis it did not start.
    cleanups.push(async () => void (await redis.removeKeys(queuePrefix)));
    const sim = await startSimulator({ scenario: options.scenario, port: 0, speed: options.speed });
    cleanups.push(() => sim.close());
    const signingSecret = randomBytes(16).toString('hex');
    const fake = await startFakeSlack({
      signingSecret,
      userNames: Object.fromEntries(PLAYGROUND_USERS.map((user) => [user.id, user.name])),
      channelNames: { [PLAYGROUND_CHANNEL.id]: PLAYGROUND_CHANNEL.name },
      socketMode: options.socketMode,
    });
    cleanups.push(() => fake.close());

    const env = parseEnv({
      SLACK_BOT_TOKEN: 'xoxb-playground-token',
      ...(options.socketMode ? { SLACK_APP_TOKEN: 'xapp-1-A0FAKEAPP-1-playground' } : { SLACK_SIGNING_SECRET: signingSecret }),
      SLACK_API_URL: fake.apiUrl,
      ...redis.env,
      PORT: '0',
      ROLE: 'all',
      LOG_LEVEL: options.logLevel ?? 'silent',
      QUEUE_PREFIX: queuePrefix,
      AWS_POLL_SECONDS: '0.5',
    });
    const clusters = [...sim.world.clusters.values()].map((cluster) => ({ name: cluster.name, region: cluster.region }));
    const bot = await startBot({
      env,
      config: playgroundClustersConfig(clusters),
      logger: createLogger({ level: env.LOG_LEVEL }),
      aws: { endpoint: sim.url, credentials: { accessKeyId: 'playground', secretAccessKey: 'playground' } },
      threadPacing: options.threadPacing,
    });
    cleanups.push(() => bot.stop());
    if (!options.socketMode) fake.setBotEventsUrl(`http://127.0.0.1:${bot.port}/slack/events`);

    const page = await startPlaygroundHttp({
      port: options.port,
      host: options.host,
      slackUrl: fake.url,
      simUrl: sim.url,
      settings: {
        scenario: sim.world.scenario.name,
        channel: PLAYGROUND_CHANNEL,
        users: PLAYGROUND_USERS,
        clusters: clusters.map((cluster) => cluster.name),
        examples: exampleCommands([...sim.world.clusters.values()][0]),
      },
    });
    cleanups.push(() => page.close());
    return { url: page.url, sim, fake, redisUrl: redis.url, queuePrefix: env.QUEUE_PREFIX, close };
  } catch (error) {
    await close();
    throw error;
  }
}
