import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/sim/test/**/*.test.ts'],
    // End-to-end tests run whole upgrades, whose threads the outbox paces at ~1 post/s per channel (Slack's limit):
    // generous limits keep them from failing on a busy 2-core machine. Speed is measured in bench/, not here.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Integration tests start simulators and Redis queues of their own; two cores is the CI machine.
    pool: 'forks',
    // The SDK's "Node ≥22 after January 2027" notice would print once per test process; Node 20 is pinned on purpose.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    maxWorkers: 2,
  },
});
