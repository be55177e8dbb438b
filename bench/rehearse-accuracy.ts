import '../src/log/quiet-node-version-warning.js';
import { loadScenario, scenarioNames, startSimulator, type SimServer } from '@eks-upgrade-bot/sim/services';
import { rehearseUpgrade, readTwinOf, runUpgradeOnScenario, type RehearsalReport } from '../jobs/rehearsal/rehearse-upgrade.js';
import { createAutoScalingPortFactory } from '../src/aws/autoscaling-sdk-adapter.js';
import { createEc2PortFactory } from '../src/aws/ec2-sdk-adapter.js';
import { createEksPortFactory } from '../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../src/aws/ssm-sdk-adapter.js';
import { parseClustersConfig } from '../src/config/clusters-config.js';
import { createKubePortFactory } from '../src/kube/client-node-adapter.js';
import { createLogger } from '../src/log/logger.js';
import { buildPlan } from '../src/planning/planner/build-plan.js';
import { policyFromConfig } from '../src/planning/plan-policy.js';
import { systemClock } from '../src/ports/clock.js';
import type { SnapshotSources } from '../src/cluster-reader/collect-snapshot.js';
import { printRow } from './kit/figures.js';
import { createQueueKit } from '../src/store/queue-kit.js';
import { twinPorts } from '../src/wiring/twin-ports.js';

/**
 * Issue 15's benchmark: how close a rehearsal's predicted step durations (the twin built from a read of the
 * `workshop` cluster, at BENCH_REHEARSE_SPEED, default 300) come to a run of the very same upgrade on the original
 * scenario at BENCH_RUN_SPEED (default 60, nearer real time), both in simulated time; then, if a `scale` scenario
 * exists, how long reading, building and rehearsing a large twin takes. Figures only (nothing asserted).
 */
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REHEARSE_SPEED = Number(process.env.BENCH_REHEARSE_SPEED ?? 300);
const RUN_SPEED = Number(process.env.BENCH_RUN_SPEED ?? 60);
const logger = createLogger({ level: 'silent' });
// Each rehearsal's engine runs in a scope of this kit under its own prefix (closed when the rehearsal ends).
const queues = createQueueKit({ url: REDIS }, 'bench-rehearse');

function sources(sim: SimServer): SnapshotSources {
  const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  const eks = createEksPortFactory({ endpoint: sim.url, credentials });
  return {
    eks,
    ec2: createEc2PortFactory({ endpoint: sim.url, credentials }),
    ssm: createSsmPortFactory({ endpoint: sim.url, credentials }),
    autoScaling: createAutoScalingPortFactory({ endpoint: sim.url, credentials }),
    kube: createKubePortFactory({ eks, credentials }),
    clock: systemClock,
  };
}

async function settled(sim: SimServer): Promise<void> {
  const until = Date.now() + 60_000;
  for (const cluster of sim.world.clusters.values()) {
    while (Date.now() < until && !cluster.store.list('pods').every((p) => p.spec?.nodeName && p.status?.phase === 'Running')) await new Promise((r) => setTimeout(r, 100));
  }
}

async function accuracy(): Promise<void> {
  const name = 'eksworkshop-eksctl';
  const config = parseClustersConfig({
    clusters: [{ name, region: 'us-west-2', channels: ['C0B'], requesters: ['U0B'], approvers: ['U0B'], karpenter: { upgradeBudget: '1' }, nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } } }],
  }).clusters[0];
  const cluster = { name, region: 'us-west-2', config };
  const real = await startSimulator({ scenario: 'workshop', port: 0, speed: 600 });
  let predicted: RehearsalReport;
  let actual: RehearsalReport;
  try {
    await settled(real);
    const started = performance.now();
    predicted = await rehearseUpgrade({ sources: sources(real), cluster, to: '1.26', answers: 'remedy', queues, twinPorts, prefix: `bench-rehearse-${Date.now()}`, logger, speed: REHEARSE_SPEED, timeoutMs: 900_000 });
    printRow(`workshop rehearsal at ${REHEARSE_SPEED}x`, { wall_s: (performance.now() - started) / 1000, state: predicted.state, predicted_min: predicted.rehearsedMs / 60_000 });
    const read = await readTwinOf(sources(real), cluster, { to: '1.26' });
    const plan = buildPlan(read.snapshot, '1.26', policyFromConfig(config));
    const runStarted = performance.now();
    actual = await runUpgradeOnScenario(loadScenario('workshop'), plan, read.from, { cluster, to: '1.26', answers: 'remedy', queues, twinPorts, prefix: `bench-run-${Date.now()}`, logger, speed: RUN_SPEED, timeoutMs: 1_800_000 });
    printRow(`workshop run of the original scenario at ${RUN_SPEED}x`, { wall_s: (performance.now() - runStarted) / 1000, state: actual.state, actual_min: actual.rehearsedMs / 60_000 });
  } finally {
    await real.close();
  }
  for (const step of actual.steps) {
    const guess = predicted.steps.find((s) => s.step === step.step);
    const a = (step.durationMs ?? 0) / 60_000;
    const p = (guess?.durationMs ?? 0) / 60_000;
    printRow(`  ${step.step}`, { actual_min: a, predicted_min: p, error_pct: a > 0 ? (100 * (p - a)) / a : 0, plan_estimate_min: step.estimateMinutes ?? 0 });
  }
  const total = actual.rehearsedMs / 60_000;
  printRow('  total', { actual_min: total, predicted_min: predicted.rehearsedMs / 60_000, error_pct: (100 * (predicted.rehearsedMs - actual.rehearsedMs)) / actual.rehearsedMs, plan_estimate_min: predicted.planEstimateMinutes });
}

async function scale(): Promise<void> {
  if (!scenarioNames().includes('scale')) {
    process.stdout.write('scale: no `scale` scenario in src/sim/scenarios; large-twin timing skipped.\n');
    return;
  }
  const real = await startSimulator({ scenario: 'scale', port: 0, speed: 600 });
  try {
    await settled(real);
    const name = [...real.world.clusters.keys()][0];
    const region = real.world.cluster(name)!.region;
    const built = performance.now();
    const read = await readTwinOf(sources(real), { name, region }, { timeoutMs: 120_000 });
    const buildS = (performance.now() - built) / 1000;
    const nodes = real.world.kube(name)!.list('nodes').length;
    const started = performance.now();
    const to = `1.${Number(read.from.split('.')[1]) + 1}`;
    const report = await rehearseUpgrade({ sources: sources(real), cluster: { name, region }, to, answers: 'continue', queues, twinPorts, prefix: `bench-scale-${Date.now()}`, logger, speed: REHEARSE_SPEED, timeoutMs: 900_000 });
    printRow(`scale (${nodes} nodes)`, { read_and_build_s: buildS, rehearse_wall_s: (performance.now() - started) / 1000, state: report.state, predicted_min: report.rehearsedMs / 60_000 });
  } finally {
    await real.close();
  }
}

accuracy()
  .then(scale)
  .then(() => queues.close())
  .then(() => process.exit(0))
  .catch((error: Error) => {
    process.stderr.write(`rehearse-accuracy: ${error.stack ?? error.message}\n`);
    process.exit(1);
  });
