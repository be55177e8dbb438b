import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start simulators and Redis queues of their own; two cores is the CI machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
