import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMutatingCalls, type SimServer } from '@eks-upgrade-bot/sim';
import { rehearseUpgrade, type RehearsalReport } from '../../jobs/rehearsal/rehearse-upgrade.js';
import { createLogger } from '../../src/log/logger.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { Redis } from 'ioredis';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { twinPorts } from '../../src/wiring/twin-ports.js';
import { createRehearsalStore } from '../../src/store/rehearsal-store.js';
import { buildPlan } from '../../src/planning/planner/build-plan.js';
import { policyFromConfig } from '../../src/planning/plan-policy.js';
import { rehearsalProblem } from '../../src/planning/planner/plan-hash.js';
import { collectSnapshot } from '../../src/cluster-reader/collect-snapshot.js';
import { settled, simSources } from './read-path-harness.js';

/**
 * Issue 15, done when: rehearsing `workshop` (read from the simulator as if it were real AWS) reproduces the real
 * run's blocks — orders-pdb on blue-mng, the removed HPA API — and its step order, with zero mutating calls on the
 * cluster it read.
 */
const CLUSTER = 'eksworkshop-eksctl';
let real: SimServer;
let report: RehearsalReport;
const prefix = freshPrefix('rehearse');
const queues = createQueueKit({ url: redisUrl }, prefix);
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const store = createRehearsalStore(redis, prefix);
const config = parseClustersConfig({ clusters: [{
  name: CLUSTER, region: 'us-west-2', channels: ['C0OPS'], requesters: ['U0REQ'], approvers: ['U0APP'], requireRehearsal: '24h',
  karpenter: { upgradeBudget: '1' },
  nodegroups: { 'blue-mng*': { strategy: 'blue-green' }, 'custom*': { strategy: 'in-place', amiParameter: '/eks-upgrade-bot/amis/workshop/{minor}/image_id' }, '*': { strategy: 'in-place' } },
}] }).clusters[0];

beforeAll(async () => {
  real = await startSim('workshop', { speed: 600 });
  await settled(real, CLUSTER);
  report = await rehearseUpgrade({
    sources: simSources(real),
    // The clusters.yaml entry of the real run (test/e2e/upgrade-workshop.test.ts).
    cluster: { name: CLUSTER, region: 'us-west-2', config },
    to: '1.26',
    answers: 'remedy',
    queues,
    twinPorts,
    prefix,
    logger: createLogger({ level: 'silent' }),
    // A safety net for a loaded machine (quiet, the rehearsal takes about ten seconds), not a pace.
    timeoutMs: 420_000,
    // The simulated Karpenter drift of the workshop sometimes takes hours at this speed on a loaded machine.
    stallMinutes: 480,
    speed: 600,
    store,
  });
  if (process.env.E2E_PRINT) console.log(report.lines.join('\n'), JSON.stringify(report.gates, null, 1));
}, 480_000);
afterAll(async () => {
  await queues.close();
  await real?.close();
  await deleteKeys(`${prefix}*`);
  redis.disconnect();
});

describe('rehearse workshop 1.25 → 1.26', () => {
  it('reproduces the blocks: the removed HPA API at preflight, orders-pdb on blue-mng', () => {
    expect(report.blocks.join('\n')).toMatch(/INS001.*autoscaling\/v2beta2 horizontalpodautoscalers/);
    expect(report.blocks.join('\n')).toMatch(/orders-pdb/);
    const drain = report.gates.find((g) => /blue-mng-20250325023020754500000029/.test(g.gateId) && g.details.join(' ').includes('PDB orders/orders-pdb'));
    expect(drain, report.gates.map((g) => `${g.gateId}: ${g.details.join(' | ')}`).join('\n')).toBeDefined();
    expect(drain!.answer).toBe('remedy');
  });

  it('lists no line of a gate that only asks for approval as a block (the blue group\'s delete, once its clone is Ready)', () => {
    const approvals = report.gates.filter((g) => g.answer === 'continue').map((g) => g.gateId);
    expect(approvals.length).toBeGreaterThan(0);
    expect(report.blocks.filter((line) => approvals.some((gateId) => line.startsWith(`${gateId}: `)))).toEqual([]);
  });

  it('runs the steps in the real run\'s order and predicts their durations in simulated time', () => {
    const order = ['preflight', 'control-plane', 'addons', 'managed-nodegroups', 'karpenter', 'self-managed', 'fargate', 'verify'];
    const seen = report.steps.map((s) => s.step.replace(/^h1-/, ''));
    expect(seen.filter((s) => order.includes(s))).toEqual(order.filter((s) => seen.includes(s)));
    expect(seen.filter((s) => order.includes(s))).toEqual(order);
    expect(report.state).toBe('succeeded');
    const controlPlane = report.steps.find((s) => s.step === 'h1-control-plane')!;
    expect(controlPlane.durationMs).toBeGreaterThan(9 * 60_000);
    expect(report.lines[0]).toMatch(/^REHEARSAL of eksworkshop-eksctl 1\.25 → 1\.26/);
  });

  it('changes nothing on the cluster it read', () => {
    expect(countMutatingCalls(real)).toBe(0);
    expect(real.world.cluster(CLUSTER)!.version).toBe('1.25');
  });

  it('is kept with its plan hash, so a real start of the same plan under requireRehearsal: 24h goes ahead', async () => {
    const last = await store.latest(CLUSTER, '1.26');
    expect(last).toMatchObject({ state: 'succeeded', planHash: report.planHash });
    const snapshot = await collectSnapshot(simSources(real), { name: CLUSTER, region: 'us-west-2', targetMinors: ['1.26'] });
    const realPlan = buildPlan(snapshot, '1.26', policyFromConfig(config));
    expect(rehearsalProblem(CLUSTER, '1.26', realPlan, last, 24, Date.now())).toBeUndefined();
    expect(rehearsalProblem(CLUSTER, '1.27', realPlan, await store.latest(CLUSTER, '1.27'), 24, Date.now())).toMatch(/none to 1\.27 is on record/);
  });
});
