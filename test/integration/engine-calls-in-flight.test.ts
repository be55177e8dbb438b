import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EksPortFactory } from '../../src/ports/aws/eks-port.js';
import type { KubePortFactory } from '../../src/ports/kube-port.js';
import { startEngineHarness, waitForJobState, type EngineHarness } from './engine-harness.js';

/**
 * WORKER_CALLS_IN_FLIGHT (createUpgradeEngine's `callsInFlight`): the upgrade jobs of one worker process have at
 * most that many AWS and Kubernetes calls out at once. The preflight reads the demo cluster with many calls in
 * parallel; what reaches the simulator (real SDK and client-node over HTTP) is counted as it goes out and comes
 * back.
 */
let h: EngineHarness;
beforeEach(async () => {
  h = await startEngineHarness({ stepKinds: ['preflight', 'gate', 'control-plane', 'verify'] });
});
afterEach(async () => {
  await h.close();
});

/** The harness's own EKS and Kubernetes ports, with every call counted while it is out. */
function countingCalls(h: EngineHarness) {
  let out = 0;
  let most = 0;
  let calls = 0;
  const counted = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, property) {
        const value = Reflect.get(target, property) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          out++;
          calls++;
          most = Math.max(most, out);
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } finally {
            out--;
          }
        };
      },
    });
  const eks: EksPortFactory = (target) => counted(h.sources.eks(target));
  const kube: KubePortFactory = async (target) => counted(await h.sources.kube(target));
  return { eks, kube, most: () => most, calls: () => calls };
}

async function preflightOnce(callsInFlight: number | undefined) {
  const counter = countingCalls(h);
  const engine = h.engine({ eks: counter.eks, kube: counter.kube, ...(callsInFlight ? { callsInFlight } : {}) });
  await engine.startWorker();
  const started = await h.start(engine.control, h.request(), '1.30');
  if (!started.ok) throw new Error(`the job did not start: ${started.reason}`);
  await waitForJobState(engine, started.job.jobId, ['waiting-approval']);
  return { most: counter.most(), calls: counter.calls(), finished: h.thread.events('step-finished').map((e) => (e.kind === 'step-finished' ? e.title : '')) };
}

describe('upgrade engine: calls in flight', () => {
  it('with callsInFlight 2 the preflight never has more than two calls out, and still reaches the approval gate', async () => {
    const bounded = await preflightOnce(2);
    expect(bounded.finished).toContain('preflight for 1.31');
    expect(bounded.calls).toBeGreaterThan(10);
    expect(bounded.most).toBeLessThanOrEqual(2);
    expect(bounded.most).toBe(2);
  });

  it('the default lets the same preflight make its reads side by side (what the bound above holds back)', async () => {
    const free = await preflightOnce(undefined);
    expect(free.finished).toContain('preflight for 1.31');
    expect(free.most).toBeGreaterThan(2);
  });
});
