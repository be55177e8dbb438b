import { afterAll, beforeAll, describe, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { startBot, type RunningBot } from '../../src/start-bot.js';
import { E2E_CREDENTIALS, startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { answerEveryGate } from '../support/e2e-thread.js';
import { expectWaveDoneOnce, stagingPairConfig, startStagingWave } from '../support/fleet-rollout-drill.js';

/**
 * Two workers share a rollout's wave; one of them shuts down (a rolling deploy) while the wave's upgrades run. Its
 * lanes are parked and picked up by the other worker, which follows the same upgrade jobs: the wave completes, each
 * cluster's control plane is updated once, and each start is announced once in the rollout's thread.
 */
describe('a worker stopping mid-rollout', () => {
  let stack: E2eStack;
  let second: RunningBot | undefined;
  let gates: { stop(): void } | undefined;

  beforeAll(async () => {
    stack = await startE2eStack({
      scenario: 'fleet',
      fleetClusters: 17,
      speed: 600,
      botClock: 'sim',
      pollSeconds: 60,
      clusters: stagingPairConfig,
    });
    second = await startBot({ env: { ...stack.env, ROLE: 'worker', PORT: 0 }, config: stack.config, logger: createLogger({ level: 'silent' }), aws: { endpoint: stack.sim.url, credentials: E2E_CREDENTIALS }, clock: stack.sim.clock });
    gates = answerEveryGate(stack.fake, 'C0OPS', 'U0APP');
  }, 60_000);

  afterAll(async () => {
    gates?.stop();
    await second?.stop();
    await stack?.close();
  });

  it('loses nothing and repeats no mutating call', async () => {
    const { parent } = await startStagingWave(stack);
    await second!.stop();
    second = undefined;
    await expectWaveDoneOnce(stack, parent);
  }, 90_000);
});
