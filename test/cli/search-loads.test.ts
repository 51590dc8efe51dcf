// A warm `cairn search` loads only what its answer needs: every millisecond of module loading is paid
// by each agent that searches from a shell. The learned injection detector (its word tables cost
// 10-20 ms to build) is loaded only when a returned file was not scanned clean before
// (ops/clean-scans.ts). The built bundle as a real process; a preload script lists the bundle's
// files each run requires.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, removeDir, tempDir } from '../helpers/store.js';
import { makeStore, memoryText } from '../lsp/lsp-helper.js';

const TRACE = `
const Module = require('node:module');
const path = require('node:path');
const require_ = Module.prototype.require;
Module.prototype.require = function (id) {
  if (id.startsWith('./') && id.endsWith('.cjs')) process.stderr.write('LOADED ' + path.basename(id) + '\\n');
  return require_.apply(this, arguments);
};
`;

describe('the modules a warm search loads', () => {
  let root: string;
  let scratch: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    root = makeStore({
      'memories/deploy-notes.md': memoryText(
        'deploy-notes',
        '## Context\n\nThe deploy cache is retried twice.',
      ),
      'memories/other-notes.md': memoryText('other-notes', '## Context\n\nNothing about that here.'),
    });
    scratch = tempDir('cairn-loads-');
    const trace = path.join(scratch, 'trace.cjs');
    writeFileSync(trace, TRACE);
    env = { NODE_OPTIONS: `--require ${trace}` };
    expect((await cairn(['index', '--store', root])).code).toBe(0);
  });
  afterAll(() => {
    removeDir(root);
    removeDir(scratch);
  });

  const search = async () => {
    const r = await cairn(['search', '--store', root, '--json', 'deploy cache'], { env });
    expect(r.code, r.stderr).toBe(0);
    const loaded = [...r.stderr.matchAll(/^LOADED (.*)$/gm)].map((m) => m[1]);
    return { stdout: r.stdout, loaded, detector: loaded.filter((f) => /^injection-model-(?!file)/.test(f)) };
  };

  it('loads the injection detector to scan a file once, and not again once it was scanned clean', async () => {
    const first = await search();
    // The preload sees the bundle's files (the test would pass vacuously otherwise).
    expect(first.loaded.length).toBeGreaterThan(5);
    expect(first.detector.length).toBeGreaterThan(0);
    const again = await search();
    expect(again.detector).toEqual([]);
    expect(again.stdout).toBe(first.stdout);
    expect(JSON.parse(again.stdout).entries[0].topicId).toBe('deploy-notes');
  });
});
