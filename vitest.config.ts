import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql ships CommonJS (main) and ESM (module) builds; Vite would load the ESM one for our imports while
    // Mercurius requires the CommonJS one, and graphql refuses a schema built by the other copy. Node itself
    // (npm start, the benchmark) loads the CommonJS build for both, so tests do the same.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Forked workers inherit the environment the global setup prepared (NODE_EXTRA_CA_CERTS for the CIMD tests).
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
