import '../../src/log/quiet-node-version-warning.js';
import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { createLogger } from '../../src/log/logger.js';
import { systemClock } from '../../src/ports/clock.js';
import { createSlackThreadPort } from '../../src/slack/thread/slack-thread-port.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createSlackWebClient } from '../../src/slack/slack-web-client.js';
import { createUpgradeEngine } from '../../jobs/worker/create-upgrade-engine.js';
import { twinPorts } from '../../src/wiring/twin-ports.js';
import { createRolloutEngine } from '../../jobs/rollout/rollout-engine.js';
import { createChannelPoster } from '../../src/slack/channel-poster.js';
import { killSwitch } from './kill-switch.js';
import { Redis } from 'ioredis';
import { startRehearsalWorker } from '../../jobs/rehearsal/rehearsal-worker.js';
import { createRehearsalStore } from '../../src/store/rehearsal-store.js';

/**
 * The bot's worker role (upgrade jobs, rollouts, rehearsals + the thread outbox) in a process of its own, for the e2e crash tests to
 * SIGKILL. Wired exactly as src/start-bot.ts wires ROLE=worker — same adapters, same Slack client settings — except
 * that the BullMQ lock and the outbox lease are short, so a killed worker's job and channel are taken over within
 * seconds instead of the production 30 s (startBot offers no way to set them).
 *
 * Environment: SIM_URL, SLACK_API_URL, SLACK_BOT_TOKEN, REDIS_URL, QUEUE_PREFIX, CLUSTERS_JSON (the raw clusters:
 * list), AWS_POLL_SECONDS, LOCK_MS, THREAD_MIN_INTERVAL_MS (the outbox's pacing, as the stack's bot has it; default
 * Slack's one per second), WORKER_CONCURRENCY (upgrade jobs at once, as in production) and KILL_AT (kill-switch.ts). Prints "ready" once it takes jobs; SIGTERM closes it gracefully.
 */
const env = process.env;
const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
const lockMs = Number(env.LOCK_MS ?? 3_000);
const logger = createLogger({ level: (env.E2E_LOG as 'info' | undefined) ?? 'silent' }).child({ pid: process.pid });
const connection = { url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
const prefix = env.QUEUE_PREFIX!;
const queues = createQueueKit(connection, prefix);

const sdkOptions = { endpoint: env.SIM_URL!, credentials };
const kill = killSwitch(env.KILL_AT);
const eks = kill.eks(createEksPortFactory(sdkOptions));
const kube = kill.kube(createKubePortFactory({ eks, credentials, clock: systemClock, logger }));
const client = createSlackWebClient(env.SLACK_BOT_TOKEN!, { apiUrl: env.SLACK_API_URL!, logger });
const outbox = createSlackThreadPort({ client, queues, logger: logger.child({ part: 'thread' }), lockTtlMs: lockMs,
  ...(env.THREAD_MIN_INTERVAL_MS ? { minIntervalMs: Number(env.THREAD_MIN_INTERVAL_MS) } : {}),
});
const thread = { ...outbox, ...kill.thread(outbox) };
const engine = createUpgradeEngine({
  queues,
  config: parseClustersConfig({ clusters: JSON.parse(env.CLUSTERS_JSON!) }),
  eks,
  kube,
  ssm: createSsmPortFactory(sdkOptions),
  ec2: createEc2PortFactory(sdkOptions),
  autoScaling: createAutoScalingPortFactory(sdkOptions),
  thread,
  clock: systemClock,
  logger: logger.child({ part: 'engine' }),
  pollIntervalMs: Number(env.AWS_POLL_SECONDS ?? 0.2) * 1000,
  worker: { lockDurationMs: lockMs, stalledIntervalMs: Math.max(500, Math.floor(lockMs / 3)) },
});

// Rollout waves and lanes too, as ROLE=worker runs them (src/start-bot.ts).
const config = parseClustersConfig({ clusters: JSON.parse(env.CLUSTERS_JSON!) });
const rollouts = createRolloutEngine({
  queues,
  config,
  sources: { eks, kube, ssm: createSsmPortFactory(sdkOptions), ec2: createEc2PortFactory(sdkOptions), autoScaling: createAutoScalingPortFactory(sdkOptions), clock: systemClock },
  control: engine.control,
  poster: createChannelPoster(client),
  logger: logger.child({ part: 'rollout' }),
  // As src/start-bot.ts sets it from AWS_POLL_SECONDS, never hotter than every 250 ms.
  pollMs: Math.max(250, Number(env.AWS_POLL_SECONDS ?? 0.2) * 1000),
  worker: { lockDurationMs: lockMs, stalledIntervalMs: Math.max(500, Math.floor(lockMs / 3)) },
});

// Rehearsals too (issue 15), with the same short lock: a killed worker's rehearsal starts again on another.
const rehearsalRedis = new Redis(connection.url, { maxRetriesPerRequest: 3 });
let rehearsals: { close(): Promise<void> } | undefined;

process.once('SIGTERM', () => {
  void (rehearsals?.close() ?? Promise.resolve())
    .then(() => rehearsalRedis.quit().catch(() => undefined))
    .then(() => rollouts.close())
    .then(() => engine.close())
    .then(() => thread.close())
    .then(() => queues.close())
    .finally(() => process.exit(0));
});

await thread.start();
await engine.startWorker(env.WORKER_CONCURRENCY ? { concurrency: Number(env.WORKER_CONCURRENCY) } : {});
await rollouts.startWorker();
rehearsals = await startRehearsalWorker({
  queues,
  twinPorts,
  config,
  sources: { eks, kube, ssm: createSsmPortFactory(sdkOptions), ec2: createEc2PortFactory(sdkOptions), autoScaling: createAutoScalingPortFactory(sdkOptions), clock: systemClock },
  thread,
  store: createRehearsalStore(rehearsalRedis, prefix),
  logger: logger.child({ part: 'rehearsal' }),
  worker: { lockDurationMs: lockMs, stalledIntervalMs: Math.max(500, Math.floor(lockMs / 3)) },
});
process.stdout.write('ready\n');
