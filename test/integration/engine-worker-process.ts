import { createAutoScalingPortFactory } from '../../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { createLogger } from '../../src/log/logger.js';
import { systemClock } from '../../src/ports/clock.js';
import { createUpgradeEngine } from '../../jobs/worker/create-upgrade-engine.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { createRecordingThreadPort } from '../support/recording-thread-port.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import type { StepKind } from '../../src/ports/upgrade-plan.js';
import { demoConfig } from './engine-harness.js';

/**
 * A worker in a process of its own, for the crash test (engine-crash.test.ts) to SIGKILL: the engine against the
 * simulator at SIM_URL on the queue REDIS_URL + ENGINE_PREFIX, with short locks so a killed worker's job is
 * recovered in seconds. Prints "ready" once the worker listens.
 */
const url = process.env.SIM_URL!;
const credentials = { accessKeyId: 'AKIDSIMULATOR', secretAccessKey: 'simulator' };
const eks = createEksPortFactory({ endpoint: url, credentials, maxAttempts: 2 });
const engine = createUpgradeEngine({
  queues: createQueueKit({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, process.env.ENGINE_PREFIX!),
  // The self-managed crash test passes its own clusters and steps.
  config: process.env.ENGINE_CLUSTERS_JSON ? parseClustersConfig({ clusters: JSON.parse(process.env.ENGINE_CLUSTERS_JSON) }) : demoConfig,
  eks,
  ssm: createSsmPortFactory({ endpoint: url, credentials }),
  ec2: createEc2PortFactory({ endpoint: url, credentials }),
  autoScaling: createAutoScalingPortFactory({ endpoint: url, credentials }),
  kube: createKubePortFactory({ eks, tokenSourceFor: () => ({ token: async () => 'sim' }) }),
  thread: createRecordingThreadPort(),
  clock: systemClock,
  logger: createLogger({ level: 'silent' }),
  pollIntervalMs: 50,
  stepKinds: (process.env.ENGINE_STEP_KINDS?.split(',') as StepKind[] | undefined) ?? ['preflight', 'gate', 'control-plane', 'verify'],
  worker: { lockDurationMs: 2_000, stalledIntervalMs: 1_000 },
});
// A standby (ENGINE_STANDBY=1) boots, says so, and takes jobs only once told to on stdin: a test has the next worker
// process booted before it kills the current one, as a second replica would be.
if (process.env.ENGINE_STANDBY === '1') {
  process.stdout.write('standing by\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
}
await engine.startWorker();
process.stdout.write('ready\n');
