import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No test leaves a resident search behind (bin/resident-client.js) unless it asks for one:
    // test/cli/resident-search.test.ts turns it on and stops what it started.
    env: { CAIRN_RESIDENT: '0' },
  },
});
