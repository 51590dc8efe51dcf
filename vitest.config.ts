import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No test leaves a resident search behind (bin/resident-client.js) unless it asks for one:
    // test/cli/resident-search.test.ts turns it on and stops what it started.
    // The key that seals caches under .cairn/ (server/src/store/state-key.ts) is made in a folder of
    // the tests' own, never in the home folder of whoever runs them; CLIs the tests start inherit it.
    env: { CAIRN_RESIDENT: '0', XDG_STATE_HOME: path.join(os.tmpdir(), 'cairn-test-state') },
  },
});
