import type { TestContext } from 'vitest';
import { describe, it } from 'vitest';
import type { KubeObject } from '../../src/ports/kube-port.js';
import { startE2eStack, type E2eStack, type SimCall } from '../support/e2e-stack.js';
import { clustersFor, pollWorld, repeatedCalls } from '../chaos/kill-point.js';
import { answerGatesUntilSummary, readStepMessage, repliesOf, statusCard, stepMessagesOf } from '../support/e2e-thread.js';
import { startWorkerChild, type WorkerChild } from '../support/e2e-worker.js';

/**
 * Issue 5, "Crash safety", end to end: the web side (Slack commands and clicks) runs in this process with ROLE=web,
 * the worker (upgrade jobs and the thread outbox) in a child process on the same Redis queue prefix. The child is
 * SIGKILLed at a bad moment — while the control plane updates, while a managed node group updates, while Karpenter
 * replaces drifted nodes — and a new worker process is started. The upgrade must complete with no mutating AWS call
 * repeated, the thread must go on under the same status card without repeating itself, and budgets must be back.
 * The three cases run concurrently (each has its own simulator, fake Slack and prefix); thread pacing (one post per
 * second per channel) dominates their duration.
 */
const CHANNEL = 'C0OPS';
const FORCE_REASON = 'findings reviewed by the platform team before the drill';

interface CrashCase {
  scenario: string;
  cluster: string;
  to: string;
  speed: number;
  /** Calls `kill` with a description of the moment once it is time to kill the worker; returns an unsubscribe. */
  watch(stack: E2eStack, kill: (moment: string) => void): () => void;
}



const accepted = (stack: E2eStack, operation: string) => stack.sim.world.calls.some((call) => call.operation === operation);


type AfterCrash = (stack: E2eStack, calls: SimCall[], killedAt: string) => void | Promise<void>;

async function runCrashCase(c: CrashCase, { expect }: TestContext, after: AfterCrash) {
  const clusters = clustersFor(c.cluster);
  const stack = await startE2eStack({ scenario: c.scenario, speed: c.speed, role: 'web', clusters });
  const workers: WorkerChild[] = [];
  let stopWatching = () => {};
  try {
    workers.push(await startWorkerChild(stack, clusters));
    let killedAt: string | undefined;
    let repliesBeforeKill = 0;
    const killed = new Promise<void>((resolve) => {
      stopWatching = c.watch(stack, (moment) => {
        // Synchronously, from the watcher: the worker dies at exactly this point of the upgrade.
        workers[0].proc.kill('SIGKILL');
        killedAt = moment;
        repliesBeforeKill = repliesOf(stack.fake, CHANNEL).length;
        resolve();
      });
    });

    await stack.fake.sendSlashCommand({ text: `start ${c.cluster} --to ${c.to}`, userId: 'U0REQ', channelId: CHANNEL });
    const driving = answerGatesUntilSummary(stack.fake, {
      channel: CHANNEL,
      approver: 'U0APP',
      timeoutMs: 110_000,
      decide: (gate) => (gate.actions.includes('gate:continue') ? { action: 'continue' } : { action: 'force', reason: FORCE_REASON }),
    });
    driving.catch(() => undefined); // awaited below; keeps an early failure from being reported as unhandled

    await Promise.race([killed, driving.then(() => Promise.reject(new Error('the upgrade finished before the worker could be killed')))]);
    await workers[0].kill();
    const parent = statusCard(stack.fake, CHANNEL)!;
    expect(parent, 'the status card was posted before the crash').toBeDefined();
    const survivorStartedAt = Date.now();
    workers.push(await startWorkerChild(stack, clusters));

    const { summary } = await driving;
    await stack.fake.waitFor((f) => /Succeeded/.test(statusCard(f, CHANNEL)?.text ?? '') && f.files().some((file) => file.threadTs !== undefined && file.text.length > 0), { timeoutMs: 20_000 });

    // The upgrade completed after the crash…
    expect(summary.text, `killed ${killedAt}`).toMatch(new RegExp(`: ✅ Succeeded`));
    expect(stack.sim.world.cluster(c.cluster)?.version).toBe(c.to);
    // …without any mutating AWS call issued twice.
    const calls = await stack.acceptedCalls();
    expect(repeatedCalls(calls), `killed ${killedAt}`).toEqual([]);
    expect(calls.filter((call) => call.operation === 'UpdateClusterVersion')).toHaveLength(1);

    // The thread goes on in the same place: one status card, the survivor's replies under it, nothing repeated.
    const topLevel = stack.fake.messages(CHANNEL).filter((m) => m.source === 'chat.postMessage');
    expect(topLevel.map((m) => m.ts)).toEqual([parent.ts]);
    const replies = repliesOf(stack.fake, CHANNEL);
    expect(replies.length).toBeGreaterThan(repliesBeforeKill);
    expect(replies).toContain(summary);
    expect(stack.fake.files().map((file) => file.threadTs)).toEqual([parent.ts]);
    // The one post the killed worker had in flight — Slack took it, Redis never heard — is looked up by the id in its
    // metadata before the survivor posts it again (src/slack/thread/slack-thread-port.ts).
    const texts = replies.map((r) => r.text);
    const repeats = texts.filter((t, i) => texts.indexOf(t) !== i);
    if (repeats.length > 0) console.info(`crash ${killedAt}: repeated replies after the crash (${survivorStartedAt}): ${repeats.join(' | ')}`);
    // A step's message is found by its key even when the dead worker's answer was lost: one per step, never two,
    // each edited by the survivor to its end.
    const steps = stepMessagesOf(stack.fake, CHANNEL).map((m) => readStepMessage(m));
    const titles = steps.map((v) => v?.title);
    expect(titles.filter((t, i) => titles.indexOf(t) !== i), 'step messages posted twice').toEqual([]);
    expect(steps.every((v) => v?.state === 'finished'), titles.join(', ')).toBe(true);
    expect(statusCard(stack.fake, CHANNEL)!.text).toMatch(/: Succeeded — /);
    await after(stack, calls, killedAt!);
  } finally {
    if (process.env.E2E_PRINT) console.log(`${c.scenario}:\n${stack.fake.renderConversation({ showTimes: true })}`);
    stopWatching();
    for (const worker of workers) await worker.stop(3_000);
    await stack.close();
  }
}

// Three cases side by side in one worker, each starting worker processes: at load 20 on two cores one took over 120 s.
describe.concurrent('a worker SIGKILLed mid-upgrade is replaced and the upgrade completes', { timeout: 300_000 }, () => {
  it('during the control-plane wait (demo 1.30 → 1.31)', async (ctx) => {
    await runCrashCase(
      {
        scenario: 'demo', cluster: 'demo', to: '1.31', speed: 100,
        watch: pollWorld((stack) => (accepted(stack, 'UpdateClusterVersion') && stack.sim.world.cluster('demo')?.status === 'UPDATING' ? 'while the control plane was UPDATING' : undefined)),
      },
      ctx,
      (_stack, calls, killedAt) => {
        ctx.expect(killedAt).toBe('while the control plane was UPDATING');
        ctx.expect(calls.filter((call) => call.operation === 'UpdateNodegroupVersion').map((call) => call.target)).toEqual(['demo-ng']);
      },
    );
  });

  it('during a managed node-group update (demo 1.30 → 1.31, demo-ng)', async (ctx) => {
    await runCrashCase(
      {
        scenario: 'demo', cluster: 'demo', to: '1.31', speed: 100,
        watch: pollWorld((stack) => {
          const ng = stack.sim.world.cluster('demo')?.nodegroups.get('demo-ng');
          return accepted(stack, 'UpdateNodegroupVersion') && ng?.status === 'UPDATING' ? 'while demo-ng was UPDATING' : undefined;
        }),
      },
      ctx,
      (stack, calls, killedAt) => {
        ctx.expect(killedAt).toBe('while demo-ng was UPDATING');
        ctx.expect(calls.filter((call) => call.operation === 'UpdateNodegroupVersion').map((call) => call.target)).toEqual(['demo-ng']);
        ctx.expect(stack.sim.world.cluster('demo')?.nodegroups.get('demo-ng')?.version).toBe('1.31');
      },
    );
  });

  it('during Karpenter drift (karpenter-lab 1.30 → 1.31, budget "1")', async (ctx) => {
    const amiTerms: string[] = [];
    const budgets: string[] = [];
    await runCrashCase(
      {
        scenario: 'karpenter-lab', cluster: 'eksworkshop-eksctl', to: '1.31', speed: 100,
        watch: (s, kill) => {
          const store = s.sim.world.kube('eksworkshop-eksctl')!;
          amiTerms.push(JSON.stringify(store.get('ec2nodeclasses', 'default')?.spec?.amiSelectorTerms));
          budgets.push(JSON.stringify(store.get('nodepools', 'default')?.spec?.disruption?.budgets));
          let done = false;
          return store.subscribe((event) => {
            const object: KubeObject = event.object;
            if (event.resource === 'ec2nodeclasses' && event.type !== 'DELETED') {
              const terms = JSON.stringify(object.spec?.amiSelectorTerms);
              if (amiTerms.at(-1) !== terms) amiTerms.push(terms);
            }
            if (event.resource === 'nodepools' && event.type !== 'DELETED') {
              const b = JSON.stringify(object.spec?.disruption?.budgets);
              if (budgets.at(-1) !== b) budgets.push(b);
            }
            const disrupted = event.resource === 'nodes' && object.metadata.labels?.['karpenter.sh/nodepool']
              && (object.spec?.taints ?? []).some((t: { key: string }) => t.key === 'karpenter.sh/disrupted');
            if (disrupted && !done) {
              done = true;
              kill(`while Karpenter was disrupting ${object.metadata.name}`);
            }
          });
        },
      },
      ctx,
      (stack, _calls, killedAt) => {
        ctx.expect(killedAt).toMatch(/^while Karpenter was disrupting /);
        // The EC2NodeClass was pointed at the 1.31 AMI once, and the NodePool's own budget is back after the crash.
        ctx.expect(amiTerms).toHaveLength(2);
        ctx.expect(amiTerms[1]).not.toBe(amiTerms[0]);
        ctx.expect(budgets[0]).toBe(JSON.stringify([{ nodes: '10%' }]));
        ctx.expect(budgets).toContain(JSON.stringify([{ nodes: '1' }]));
        ctx.expect(budgets.at(-1)).toBe(JSON.stringify([{ nodes: '10%' }]));
        const nodes = stack.sim.world.kube('eksworkshop-eksctl')!.list('nodes').filter((n) => n.metadata.labels?.['karpenter.sh/nodepool']);
        ctx.expect(nodes.map((n) => String(n.status?.nodeInfo?.kubeletVersion).slice(0, 6))).toEqual(['v1.31.', 'v1.31.']);
      },
    );
  });
});
