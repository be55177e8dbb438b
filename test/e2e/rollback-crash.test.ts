import type { TestContext } from 'vitest';
import { describe, it } from 'vitest';
import type { FakeMessage, FakeSlack } from '@eks-upgrade-bot/sim';
import { startE2eStack, type E2eStack } from '../support/e2e-stack.js';
import { clustersFor, pollWorld, repeatedCalls } from '../chaos/kill-point.js';
import { answerGate, openGateOf, type OpenGate } from '../support/e2e-thread.js';
import { startWorkerChild, type WorkerChild } from '../support/e2e-worker.js';

/**
 * Issue 10, crash safety of a rollback: demo was upgraded in place to 1.31 a day ago (scenario demo-rollback). The
 * web side runs here (ROLE=web), the worker in a child process; `rollback demo` starts the job, and the worker is
 * SIGKILLed while demo-ng goes back to 1.30, or while the control plane rolls back. A new worker finishes the
 * rollback with no mutating AWS call issued twice and exactly one VersionRollback.
 */
const CHANNEL = 'C0OPS';

function rollbackCard(fake: FakeSlack): FakeMessage | undefined {
  return fake.messages(CHANNEL).find((m) => m.source === 'chat.postMessage' && /EKS rollback · /.test(m.versions[0]?.text ?? m.text));
}

async function runCrash(watch: (stack: E2eStack, kill: (moment: string) => void) => () => void, { expect }: TestContext): Promise<{ stack: E2eStack; killedAt: string }> {
  const clusters = clustersFor('demo');
  const stack = await startE2eStack({ scenario: 'demo-rollback', speed: 100, role: 'web', clusters });
  const workers: WorkerChild[] = [];
  let stopWatching = () => {};
  try {
    workers.push(await startWorkerChild(stack, clusters));
    let killedAt: string | undefined;
    const killed = new Promise<void>((resolve) => {
      stopWatching = watch(stack, (moment) => {
        workers[0].proc.kill('SIGKILL');
        killedAt = moment;
        resolve();
      });
    });
    await stack.fake.sendSlashCommand({ text: 'rollback demo', userId: 'U0REQ', channelId: CHANNEL });
    const confirmation = await stack.fake.waitFor((f) => f.ephemerals('U0REQ')[0], { timeoutMs: 30_000 });
    expect(confirmation.text).toMatch(/^Started rolling back demo from 1\.31 to 1\.30/);

    const seen = new Set<string>();
    const driving = (async () => {
      for (;;) {
        const next = await stack.fake.waitFor(
          (f) => {
            const replies = rollbackCard(f)?.replies ?? [];
            const gate = replies.map(openGateOf).find((g) => g && !seen.has(`${g.gateId}:${g.revision}`));
            if (gate) return { gate };
            const summary = replies.find((reply) => /^Rollback 1\.31 → 1\.30: /u.test(reply.text));
            return summary && { summary };
          },
          { timeoutMs: 100_000 },
        );
        if ('summary' in next && next.summary) return next.summary;
        const gate = (next as { gate: OpenGate }).gate;
        seen.add(`${gate.gateId}:${gate.revision}`);
        await answerGate(stack.fake, CHANNEL, gate, { action: 'continue' }, 'U0APP');
      }
    })();
    driving.catch(() => undefined);
    await Promise.race([killed, driving.then(() => Promise.reject(new Error('the rollback finished before the worker could be killed')))]);
    await workers[0].kill();
    workers.push(await startWorkerChild(stack, clusters));
    const summary = await driving;

    expect(summary.text, `killed ${killedAt}`).toMatch(/: ✅ Succeeded/);
    expect(stack.sim.world.cluster('demo')?.version).toBe('1.30');
    expect(stack.sim.world.cluster('demo')?.nodegroups.get('demo-ng')?.version).toBe('1.30');
    const calls = await stack.acceptedCalls();
    expect(repeatedCalls(calls), `killed ${killedAt}`).toEqual([]);
    expect(calls.filter((call) => call.operation === 'UpdateClusterVersion').map((call) => call.target)).toEqual(['1.30']);
    expect(calls.filter((call) => call.operation === 'UpdateNodegroupVersion')).toHaveLength(1);
    return { stack, killedAt: killedAt! };
  } finally {
    if (process.env.E2E_PRINT) console.log(stack.fake.renderConversation({ showTimes: true }));
    stopWatching();
    for (const worker of workers) await worker.stop(3_000);
    await stack.close();
  }
}

const accepted = (stack: E2eStack, operation: string) => stack.sim.world.calls.some((call) => call.operation === operation);

// Two cases side by side in one worker, each starting worker processes: bounded for a hang, not for a busy machine.
describe.concurrent('a worker SIGKILLed mid-rollback is replaced and the rollback completes', { timeout: 300_000 }, () => {
  it('while demo-ng goes back to 1.30', async (ctx) => {
    const { killedAt } = await runCrash(
      pollWorld((stack) => (accepted(stack, 'UpdateNodegroupVersion') && stack.sim.world.cluster('demo')?.nodegroups.get('demo-ng')?.status === 'UPDATING' ? 'while demo-ng was UPDATING' : undefined)),
      ctx,
    );
    ctx.expect(killedAt).toBe('while demo-ng was UPDATING');
  });

  it('while the control plane rolls back', async (ctx) => {
    const { killedAt } = await runCrash(
      pollWorld((stack) => (accepted(stack, 'UpdateClusterVersion') && stack.sim.world.cluster('demo')?.status === 'UPDATING' ? 'while the control plane was UPDATING' : undefined)),
      ctx,
    );
    ctx.expect(killedAt).toBe('while the control plane was UPDATING');
  });
});
