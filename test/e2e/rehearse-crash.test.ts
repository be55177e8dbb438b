import { describe, expect, it } from 'vitest';
import { countMutatingCalls } from '@eks-upgrade-bot/sim';
import { startE2eStack } from '../support/e2e-stack.js';
import { clustersFor } from '../chaos/kill-point.js';
import { blocksJson, readStepMessage, repliesOf, stepMessagesOf } from '../support/e2e-thread.js';
import { startWorkerChild, type WorkerChild } from '../support/e2e-worker.js';

/**
 * Issue 15, "if its worker dies, it starts again from a fresh snapshot and says so": the web side runs here
 * (ROLE=web), the worker in a child process. `/eks-upgrade rehearse` is queued; once the worker's twin is upgrading
 * (its first step began in the REHEARSAL thread) the worker SIGKILLs itself — its twin simulator dies with it. A second
 * worker takes the stalled rehearsal, reads the cluster again, says so in the same REHEARSAL thread, and ends with
 * the report; the cluster read got no mutating call from either worker.
 */
const CLUSTER = 'eksworkshop-eksctl';
const CHANNEL = 'C0OPS';

describe('a worker SIGKILLed mid-rehearsal', () => {
  it('is replaced; the rehearsal starts again from a fresh snapshot, says so once, and ends with its report', async () => {
    const clusters = clustersFor(CLUSTER);
    const stack = await startE2eStack({ scenario: 'workshop', speed: 600, role: 'web', clusters });
    const workers: WorkerChild[] = [];
    try {
      // The first worker SIGKILLs itself right after its rehearsal queued the preflight step's message: the twin is
      // upgrading, the REHEARSAL thread is open and saved in the job (a fixed point, not a race with the twin).
      workers.push(await startWorkerChild(stack, clusters, { killAt: 'event:step-started:preflight' }));
      await stack.fake.sendSlashCommand({ text: `rehearse ${CLUSTER} --to 1.26 --answers stop`, userId: 'U0REQ', channelId: CHANNEL });
      await stack.fake.waitFor((f) => f.ephemerals('U0REQ').some((e) => /Rehearsing the upgrade of eksworkshop-eksctl to 1\.26/.test(e.text)), { timeoutMs: 10_000 });
      await new Promise<void>((resolve) => (workers[0].proc.exitCode !== null || workers[0].proc.signalCode !== null ? resolve() : workers[0].proc.once('exit', () => resolve())));
      const card = stack.fake.messages(CHANNEL).find((m) => m.source === 'chat.postMessage' && /REHEARSAL/.test(m.text));
      expect(card, 'the first worker opened the REHEARSAL thread before it died').toBeDefined();
      expect(repliesOf(stack.fake, CHANNEL).some((r) => r.text.includes('REHEARSAL report')), 'the first worker finished before it was killed').toBe(false);
      const describes = () => Object.entries(stack.sim.requests.counts(CLUSTER).aws).filter(([op]) => /DescribeCluster$/.test(op)).reduce((sum, [, n]) => sum + n, 0);
      const describedBefore = describes();
      workers.push(await startWorkerChild(stack, clusters));

      const report = () => repliesOf(stack.fake, CHANNEL).find((r) => r.text.includes('REHEARSAL report'));
      await stack.fake.waitFor(() => report() !== undefined, { timeoutMs: 60_000 });

      // One REHEARSAL thread: the second run goes on under the same card.
      const cards = stack.fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage');
      expect(cards.map((m) => m.ts)).toEqual([card!.ts]);
      const replies = repliesOf(stack.fake, CHANNEL);
      // It says once that it started again from a fresh snapshot, after the step the dead worker was on…
      const restarts = replies.filter((r) => /stopped; it starts again from a fresh snapshot/.test(r.text));
      expect(restarts).toHaveLength(1);
      // (the step the dead worker was on, if it had started one, reads as stopped there rather than running for ever)
      const stopped = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m)).filter((v) => v?.state === 'aborted' && /worker running the rehearsal stopped/.test(v.detail));
      expect(stopped.length).toBeLessThanOrEqual(1);
      expect(stopped.every((v) => /^REHEARSAL · /.test(v!.title))).toBe(true);
      // …and it did read the cluster again (a fresh snapshot, not the dead worker's).
      expect(describes()).toBeGreaterThan(describedBefore);

      // The rehearsal ends with its report, which says it is of the run started again.
      const shown = blocksJson(report()!) + report()!.text;
      expect(shown).toMatch(/gates answered: stop\): aborted/);
      expect(shown).toMatch(/orders-pdb/);
      expect(shown).toMatch(/this report is of attempt 2, started again from a fresh snapshot/);
      expect(replies.indexOf(restarts[0])).toBeLessThan(replies.indexOf(report()!));
      // No step of the new run is left running.
      const views = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m));
      expect(views.filter((v) => v?.state === 'running').map((v) => v!.title)).toEqual([]);

      expect(countMutatingCalls(stack.sim)).toBe(0);
    } finally {
      if (process.env.E2E_PRINT) console.log(stack.fake.renderConversation({ showTimes: true }));
      for (const worker of workers) await worker.stop(3_000);
      await stack.close();
    }
  });
});
