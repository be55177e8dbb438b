import '../log/quiet-node-version-warning.js';
import { createEksPortFactory } from '../aws/eks-sdk-adapter.js';
import { createKubePortFactory } from '../kube/client-node-adapter.js';
import { systemClock } from '../ports/clock.js';
import type { SnapshotSources } from '../cluster-reader/collect-snapshot.js';
import { lazyPortFactory } from './lazy-port-factory.js';
import { runCli } from './run-cli.js';
import type { CliDeps } from './cli-deps.js';

/**
 * `npx eks-upgrade …`: the terminal entry point (bin/eks-upgrade.js loads its build, dist/cli.js). Real SDK adapters with
 * the standard credential chain; `--endpoint-url` overrides the endpoint of EKS, SSM and EC2 (AWS_ENDPOINT_URL
 * does the same through the SDK).
 */
export function realSources(endpointUrl?: string): SnapshotSources {
  const options = endpointUrl ? { endpoint: endpointUrl } : {};
  const eks = createEksPortFactory(options);
  return {
    eks,
    // EC2, Auto Scaling and SSM are read by plan, digest and rehearse, never by status: loaded when first called.
    ec2: lazyPortFactory(async () => (await import('../aws/ec2-sdk-adapter.js')).createEc2PortFactory(options)),
    autoScaling: lazyPortFactory(async () => (await import('../aws/autoscaling-sdk-adapter.js')).createAutoScalingPortFactory(options)),
    ssm: lazyPortFactory(async () => (await import('../aws/ssm-sdk-adapter.js')).createSsmPortFactory(options)),
    kube: createKubePortFactory({ eks, aws: options }),
    clock: systemClock,
  };
}

/** `status <cluster>`'s guards: the last evaluations the bot recorded, from its Redis if it answers within 1.5 s. */
export const cliGuardEvaluations: NonNullable<CliDeps['guardEvaluations']> = async (env) => {
  const [{ connectFastRedis }, { createGuardEvaluationStore }, { cliRedis }] = await Promise.all([import('../store/connect-fast-redis.js'), import('../store/guard-evaluation-store.js'), import('./cli-redis.js')]);
  const { target, prefix } = cliRedis(env);
  const { redis, close } = await connectFastRedis(target);
  return { ...(redis ? { store: createGuardEvaluationStore(redis, prefix) } : {}), close };
};

export async function main(argv: string[]): Promise<number> {
  return runCli(argv, {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    sources: realSources,
    // Redis (ioredis) loads only for the commands that read it: `status` starts without it.
    auditLog: async (env) => {
      const [{ connectRedis }, { createRedisAuditLog }, { cliRedis }] = await Promise.all([import('../store/redis-connection.js'), import('../audit/redis-audit-log.js'), import('./cli-redis.js')]);
      const { target, prefix } = cliRedis(env);
      const redis = connectRedis(target, { maxRetriesPerRequest: 1, connectTimeout: 3_000, retryStrategy: (times) => (times > 2 ? null : 200) });
      redis.on('error', () => undefined);
      return {
        audit: createRedisAuditLog(redis, { prefix, clock: systemClock }),
        close: async () => redis.disconnect(),
      };
    },
    waiverStore: async (env) => {
      const [{ connectWaiverStore }, { cliRedis }] = await Promise.all([import('../waivers/store/connect-waiver-store.js'), import('./cli-redis.js')]);
      const { target, prefix } = cliRedis(env);
      return connectWaiverStore(target, prefix);
    },
    guardEvaluations: cliGuardEvaluations,
  });
}

/** Exits once stdout has drained: reads of an unreachable cluster may leave sockets that would hold the process. */
export async function runAndExit(argv: string[]): Promise<void> {
  const code = await main(argv).catch((error: Error) => {
    process.stderr.write(`eks-upgrade: ${error.message.split('\n')[0]}\n`);
    return 1;
  });
  process.stdout.write('', () => process.exit(code));
}
