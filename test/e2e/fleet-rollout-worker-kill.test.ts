import { afterAll, beforeAll, describe, it } from 'vitest';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerEveryGate } from '../support/e2e-thread.js';
import { expectWaveDoneOnce, stagingPairConfig, startStagingWave } from '../support/fleet-rollout-drill.js';
import { startWorkerChild, type WorkerChild } from '../support/e2e-worker.js';

/**
 * The only worker process is killed (SIGKILL) while a rollout's wave upgrades two clusters; a new worker takes the
 * stalled lanes and upgrade jobs over once their locks expire and follows the same jobs: the rollout completes, each
 * control plane is updated once and each start is announced once.
 */
describe('a worker killed mid-rollout', () => {
  let stack: E2eStack;
  const workers: WorkerChild[] = [];
  let gates: { stop(): void } | undefined;

  beforeAll(async () => {
    stack = await startE2eStack({ scenario: 'fleet', fleetClusters: 17, speed: 600, role: 'web', clusters: stagingPairConfig });
    workers.push(await startWorkerChild(stack, stagingPairConfig));
    gates = answerEveryGate(stack.fake, 'C0OPS', 'U0APP');
  });

  afterAll(async () => {
    gates?.stop();
    for (const worker of workers) await worker.stop().catch(() => undefined);
    await stack?.close();
  });

  it('loses nothing and repeats no mutating call', async () => {
    const { parent } = await startStagingWave(stack);
    await workers[0].kill();
    workers.push(await startWorkerChild(stack, stagingPairConfig));
    await expectWaveDoneOnce(stack, parent);
  });
});
