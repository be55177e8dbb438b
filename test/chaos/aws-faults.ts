import { startE2eStack } from '../support/e2e-stack.js';
import { applyFaults } from '@eks-upgrade-bot/sim';
import { answerGatesUntilSummary, repliesOf, statusCard } from '../support/e2e-thread.js';
import { answerAsOperator, clustersFor, repeatedCalls } from './kill-point.js';

/**
 * An upgrade while AWS misbehaves: the simulator throttles a share of every AWS call and answers another share
 * with 500/503, from the first command to the summary. The SDK's retries and the engine's own backoff must carry
 * the upgrade to the end without a repeated mutating call; whatever reaches the thread as an error must be a
 * sentence that says what to do (never a stack trace).
 */
export interface AwsFaultFigures {
  scenario: string;
  throttleRate: number;
  errorRate: number;
  completed: boolean;
  repeatedCalls: string[];
  injected: { throttled: number; errors: number };
  stackTraces: string[];
  error?: string;
  seconds: number;
}

export async function runUpgradeUnderAwsFaults(opts: { scenario: string; cluster: string; to: string; throttleRate: number; errorRate: number; speed?: number }): Promise<AwsFaultFigures> {
  const started = Date.now();
  const channel = 'C0OPS';
  const stack = await startE2eStack({ scenario: opts.scenario, speed: opts.speed ?? 200, clusters: clustersFor(opts.cluster) });
  const figures: AwsFaultFigures = { ...opts, completed: false, repeatedCalls: [], injected: { throttled: 0, errors: 0 }, stackTraces: [], seconds: 0 };
  try {
    applyFaults(stack.sim.world.faults, { throttleRate: opts.throttleRate, errorRate: opts.errorRate });
    await stack.fake.sendSlashCommand({ text: `start ${opts.cluster} --to ${opts.to}`, userId: 'U0REQ', channelId: channel });
    const { summary } = await answerGatesUntilSummary(stack.fake, {
      channel,
      approver: 'U0APP',
      timeoutMs: 900_000,
      decide: answerAsOperator('chaos drill: AWS faults'),
    });
    figures.completed = /✅ Succeeded/.test(summary.text) && stack.sim.world.cluster(opts.cluster)?.version === opts.to;
    figures.injected = { ...stack.sim.world.faults.injected };
    applyFaults(stack.sim.world.faults, { throttleRate: 0, errorRate: 0 });
    figures.repeatedCalls = repeatedCalls(await stack.acceptedCalls());
    const shown = [...repliesOf(stack.fake, channel).map((reply) => reply.text), ...stack.fake.ephemerals().map((e) => e.text)];
    figures.stackTraces = shown.filter((text) => /\n\s+at .+\(.+:\d+:\d+\)|\bat async\b|node_modules\//.test(text)).map((text) => text.slice(0, 120));
  } catch (error) {
    const card = statusCard(stack.fake, channel)?.text ?? 'no status card';
    figures.error = `${(error as Error).message.split('\n')[0].slice(0, 80)}; status card: ${card.replace(/\s+/g, ' ').slice(0, 160)}`;
  } finally {
    await stack.close();
    figures.seconds = Math.round((Date.now() - started) / 100) / 10;
  }
  return figures;
}
