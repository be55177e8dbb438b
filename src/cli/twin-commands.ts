/**
 * `eks-upgrade snapshot` and `eks-upgrade rehearse`: the cluster read into a simulator scenario (its twin), and an
 * upgrade rehearsed on it. Loaded by run-cli.ts only when one of them is asked for: they bring the upgrade engine,
 * BullMQ, ioredis and the simulator, none of which `status` or `plan` need at start-up.
 */

import { writeFileSync } from 'node:fs';
import { connectRedis, type RedisTarget } from '../store/redis-connection.js';
import { createQueueKit } from '../store/queue-kit.js';
import { twinPorts } from '../wiring/twin-ports.js';
import { redisTarget as describeRedis } from '../doctor/redis-checks.js';
import { cliRedis } from './cli-redis.js';
import { stringify as stringifyYaml } from 'yaml';
import { decide, readTwinOf, rehearseUpgrade } from '../../jobs/rehearsal/rehearse-upgrade.js';
import { createLogger } from '../log/logger.js';
import { PlanRequestError } from '../planning/planner/build-plan.js';
import { nextMinorOf } from '../planning/upgrade-path.js';
import { describeReadError } from '../cluster-reader/read-error.js';
import { toJsonText } from '../report/json-output.js';
import { createClusterLock } from '../store/cluster-lock.js';
import { engineKeys } from '../store/engine-keys.js';
import { createRehearsalStore } from '../store/rehearsal-store.js';
import { EXIT, type CliDeps } from './cli-deps.js';
import { CliUsageError, type CliCommand } from './parse-cli-args.js';
import { loadCliConfig, resolveNamedTarget } from './resolve-targets.js';

/** Reads the cluster as `plan` does (reads only) and returns it as a simulator scenario (the twin). */
async function readTwin(command: CliCommand, deps: CliDeps): Promise<{ scenario: Record<string, unknown>; cluster: string }> {
  const config = await loadCliConfig(command, deps.env, deps.fileExists);
  const target = resolveNamedTarget(command, config, deps.env);
  const sources = deps.sources(command.endpointUrl);
  await sources.eks(target).describeCluster(target.name).catch((error) => {
    throw new PlanRequestError(describeReadError(`DescribeCluster for ${target.name}`, error));
  });
  try {
    const { scenario } = await readTwinOf(sources, target, { anonymize: command.anonymize, timeoutMs: command.timeoutSeconds * 1000 });
    return { scenario, cluster: target.name };
  } catch (error) {
    if ((error as Error).name !== 'ScenarioError') throw error;
    throw new PlanRequestError(`the twin of ${target.name} is not a scenario the simulator can load (${(error as Error).message}); please report it with the cluster's shape.`);
  }
}

export async function snapshot(command: CliCommand, deps: CliDeps): Promise<number> {
  const { scenario, cluster } = await readTwin(command, deps);
  const c = (scenario.clusters as Array<Record<string, any>>)[0];
  const text = `# Twin of ${c.name} written by eks-upgrade snapshot: no Secrets, env values or command lines are copied.\n# Replay: npm run sim -- --scenario ${command.file}\n${stringifyYaml(scenario, { lineWidth: 0 })}`;
  try {
    (deps.writeFile ?? ((path, body) => writeFileSync(path, body, { mode: 0o600 })))(command.file!, text);
  } catch (error) {
    throw new CliUsageError(`could not write ${command.file}: ${(error as Error).message}; give --file a path you can write.`);
  }
  deps.stdout(`Wrote the twin of ${cluster} to ${command.file}: ${c.nodegroups.length} node group(s), ${(c.selfManaged ?? []).length} self-managed group(s), ${(c.kubernetes ?? []).length} object(s)${command.anonymize ? ', names hashed' : ''}.\nReplay it: npm run sim -- --scenario ${command.file}\n`);
  return EXIT.ok;
}

export async function rehearseCli(command: CliCommand, deps: CliDeps): Promise<number> {
  const config = await loadCliConfig(command, deps.env, deps.fileExists);
  const target = resolveNamedTarget(command, config, deps.env);
  const sources = deps.sources(command.endpointUrl);
  const described = await sources.eks(target).describeCluster(target.name).catch((error) => {
    throw new PlanRequestError(describeReadError(`DescribeCluster for ${target.name}`, error));
  });
  const current = described.version ?? '';
  const to = command.to ?? nextMinorOf(current);
  if (!to) throw new PlanRequestError(`${target.name} reports version "${current}", which is not a Kubernetes minor.`);
  const { target: redisTarget, prefix } = cliRedis(deps.env);
  const running = await runningUpgradeOf(redisTarget, prefix, target.name);
  if (running) throw new PlanRequestError(`an upgrade of ${target.name} is running (job ${running}); rehearse it once that upgrade has ended.`);
  const answers = command.answers ?? 'continue';
  const queues = createQueueKit(redisTarget, prefix);
  const redis = queues.redis({ maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  // Ctrl-C stops the rehearsal where it is; its engine's keys go with it (only the result records stay, and an
  // interrupted rehearsal records none).
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const report = await rehearseUpgrade({
    signal: interrupt.signal,
    store: createRehearsalStore(redis, prefix),
    sources,
    cluster: target,
    to,
    answers,
    queues,
    twinPorts,
    prefix,
    logger: createLogger({ level: 'silent' }),
    onEvent: (event) => {
      if (command.output !== 'json' && (event.kind === 'step-started' || event.kind === 'gate-opened')) {
        deps.stderr(`REHEARSAL · ${event.kind === 'step-started' ? `started: ${event.title}` : `gate: ${event.gate.title} (answering ${decide(event.gate, answers)})`}\n`);
      }
    },
  }).finally(() => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return queues.close();
  });
  if (report.state === 'interrupted') {
    deps.stderr(`eks-upgrade: the rehearsal of ${target.name} was interrupted; nothing was recorded and its keys were removed.\n`);
    return 130;
  }
  deps.stdout(command.output === 'json' ? toJsonText(report) : `${report.lines.join('\n')}\n`);
  return report.state === 'succeeded' ? EXIT.ok : EXIT.blocking;
}

/** The job holding the cluster's lock in the bot's queue (a real upgrade in progress), if any. */
async function runningUpgradeOf(where: RedisTarget, prefix: string, cluster: string): Promise<string | undefined> {
  const redis = connectRedis(where, { maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: (times) => (times > 2 ? null : 200), lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await createClusterLock(redis, engineKeys(prefix)).holder(cluster);
  } catch (error) {
    throw new CliUsageError(`rehearse needs Redis for its engine, and ${describeRedis(where)} did not answer (${(error as Error).message}); set REDIS_URL to a Redis it may use.`);
  } finally {
    redis.disconnect();
  }
}
