import { afterAll, expect, it } from 'vitest';
import { countMutatingCalls, type SimServer } from '@eks-upgrade-bot/sim';
import { rehearseUpgrade } from '../../jobs/rehearsal/rehearse-upgrade.js';
import { createLogger } from '../../src/log/logger.js';
import { startSim } from '@eks-upgrade-bot/sim/kit';
import { deleteKeys, freshPrefix, redisUrl } from '../support/redis-url.js';
import { createQueueKit } from '../../src/store/queue-kit.js';
import { twinPorts } from '../../src/wiring/twin-ports.js';
import { settled, simSources } from './read-path-harness.js';

/** A rehearsal of the Karpenter lab whose checkout-redis pod is annotated do-not-disrupt: the report names the stall. */
let real: SimServer;
const prefix = freshPrefix('rehearse-karpenter');
const queues = createQueueKit({ url: redisUrl }, prefix);
afterAll(async () => {
  await queues.close();
  await real?.close();
  await deleteKeys(`${prefix}*`);
});

it('names the do-not-disrupt pod that stalls the drift of NodePool default, and changes nothing on the cluster read', async () => {
  real = await startSim('karpenter-do-not-disrupt', { speed: 600 });
  await settled(real, 'eksworkshop-eksctl');
  const report = await rehearseUpgrade({
    sources: simSources(real),
    cluster: { name: 'eksworkshop-eksctl', region: 'us-west-2' },
    to: '1.31',
    answers: 'stop',
    stallMinutes: 120,
    queues,
    twinPorts,
    prefix,
    logger: createLogger({ level: 'silent' }),
    speed: 600,
    timeoutMs: 60_000,
  });
  if (process.env.E2E_PRINT) console.log(report.lines.join('\n'));
  expect(report.state).toMatch(/^stalled/);
  expect(report.blocks.join('\n')).toMatch(/Karpenter cannot replace node .* "karpenter\.sh\/do-not-disrupt" annotation \(Pod=checkout\/checkout-redis/);
  expect(report.lines.join('\n')).toMatch(/checkout-redis/);
  expect(countMutatingCalls(real)).toBe(0);
}, 90_000);
