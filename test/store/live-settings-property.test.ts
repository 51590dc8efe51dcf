// A store opened once (as the language and MCP servers keep it) reads cairn.yaml again whenever the
// file changes: after any sequence of rewrites (same size, same clock tick), removals and links,
// `store.config` is what a new `openStore` would read, or, while the file cannot be read, the last
// settings read with a problem that says so.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../server/src/core/config.js';
import { initStore, openStore } from '../../server/src/store/store.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
// Same length, different settings: a rewrite that changes no size and may fall in one clock tick.
const TEXTS = [
  'version: 1\ngovernance:\n  commitMode: manual\n  autoFloor: 0.80\n',
  'version: 1\ngovernance:\n  commitMode: manual\n  autoFloor: 0.90\n',
  'version: 1\ngovernance:\n  commitMode: selective\n',
  'version: 1\ngovernance:\n  commitMode: aggressive\n',
  'version: 1\nsearch:\n  maxResults: 3\n',
  'version: [\n',
];

type Step = { kind: 'write'; text: number } | { kind: 'remove' } | { kind: 'link' } | { kind: 'read' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('write' as const), text: fc.nat(TEXTS.length - 1) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'remove' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'link' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'read' as const }) },
);

/** A store made by initStore in a temporary folder (`base`, removed by the test); `file` its cairn.yaml. */
async function newStore(): Promise<{ base: string; dir: string; file: string }> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'cairn-live-settings-'));
  const dir = path.join(base, 'store');
  await initStore(dir, {
    templateDir: path.join(ROOT, 'memory-template'),
    author: { name: 'Test', email: 't@example.com' },
  });
  return { base, dir, file: path.join(dir, 'cairn.yaml') };
}

describe('store settings read again when cairn.yaml changes', () => {
  it('equal a fresh read after every step', async () => {
    const { base, dir, file } = await newStore();
    const elsewhere = path.join(base, 'elsewhere.yaml');
    writeFileSync(elsewhere, TEXTS[3]);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
          rmSync(file, { force: true }); // never written through the previous run's link
          writeFileSync(file, TEXTS[0]);
          const store = await openStore({ store: dir });
          let readable = parseConfig(TEXTS[0]);
          for (const s of steps) {
            if (s.kind === 'write') {
              rmSync(file, { force: true });
              writeFileSync(file, TEXTS[s.text]);
              readable = parseConfig(TEXTS[s.text]);
            } else if (s.kind === 'remove') rmSync(file, { force: true });
            else if (s.kind === 'link') {
              rmSync(file, { force: true });
              symlinkSync(elsewhere, file);
            }
            const unreadable = s.kind === 'remove' || s.kind === 'link';
            expect(store.config).toEqual(readable.config);
            const codes = store.configProblems.map((p) => p.code);
            if (unreadable) expect(codes).toContain('config-unreadable');
            else if (s.kind === 'write') expect(codes).toEqual(readable.problems.map((p) => p.code));
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('sees an in-place rewrite of the same size within the same clock tick', async () => {
    const { base, dir, file } = await newStore();
    try {
      writeFileSync(file, TEXTS[0]);
      const store = await openStore({ store: dir });
      expect(store.config.governance.autoFloor).toBe(0.8);
      writeFileSync(file, TEXTS[1]); // same inode, same size, likely the same timestamp
      expect(store.config.governance.autoFloor).toBe(0.9);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
