import { defineConfig } from 'vitest/config';

/**
 * `npm run test:image` (run by .ci/run after `npm test`): the image smoke test, which installs the production
 * dependencies from scratch (about a minute on the 2-core CI machine) and so stays out of the main suite.
 */
export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
