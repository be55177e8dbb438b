import { defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/support/long-files-first.js';

/**
 * Three projects, sized for the 2-core CI machine (`npm run test:times` shows where the time goes):
 * - unit: the pure core and the simulator's in-process tests (test/sim/unit), in worker threads;
 * - integration: the real SDKs, client-node and BullMQ against the simulator over HTTP and a real Redis, in forks, the
 *   simulator's own tests through them, kubectl and the aws CLI (test/sim/integration) included;
 * - e2e: the whole bot driven through the fake Slack, in forks (the crash tests start and kill processes of their own).
 * Every worker keeps its module cache from file to file (isolate: false): importing the SDKs, client-node and Bolt
 * once per worker rather than once per file took about half of the suite's time. Files already share one module
 * graph between their own tests, so a file that changes module state (NODEGROUP_SETTLE) puts it back in afterEach.
 * All three share one pool of four workers (same groupOrder, same maxWorkers), so the long end-to-end files overlap
 * the short ones instead of running after them, and the longest files start first (LongFilesFirst: a fresh clone has
 * no timings, and vitest would start the largest files first). Speed is measured in bench/, not here: the timeouts
 * only bound a test that would otherwise hang on a busy machine.
 */
/**
 * Four workers on the 2-core machine: the suite waits more than it computes (simulated time, real processes,
 * Prometheus scrapes), and at two workers the load average stayed at 1.3–1.9. A quiet fresh-clone run took 662–745 s
 * of vitest at two, 388 s at three and 336 s at four (docs/benchmarks.md, "Test suite"). VITEST_WORKERS sets another
 * count, e.g. on a machine with more cores.
 */
const WORKERS = workerCount(process.env.VITEST_WORKERS);

function workerCount(value: string | undefined): number {
  if (value === undefined || value === '') return 4;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`VITEST_WORKERS is "${value}": set it to a whole number of workers, 1 or more (or leave it unset for 4).`);
  return Number(value);
}

const shared = {
  testTimeout: 180_000,
  hookTimeout: 180_000,
  // The SDK's "Node ≥22 after January 2027" notice would print once per test process; Node 20 is pinned on purpose.
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  maxWorkers: WORKERS,
};

export default defineConfig({
  test: {
    maxWorkers: WORKERS,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        extends: true,
        test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts', 'test/sim/unit/**/*.test.ts'], pool: 'threads', isolate: false },
      },
      {
        extends: true,
        test: { ...shared, name: 'integration', include: ['test/integration/**/*.test.ts', 'test/sim/integration/**/*.test.ts'], pool: 'forks', isolate: false },
      },
      {
        extends: true,
        // The image smoke test installs production dependencies from scratch: its own run (npm run test:image).
        test: { ...shared, name: 'e2e', include: ['test/e2e/**/*.test.ts'], pool: 'forks', isolate: false },
      },
    ],
  },
});
