// A real store in a temp folder with a hand-driven clock, for the agent-tool operations' tests.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { OpContext } from '../../server/src/ops/context.js';
import { initStore, openStore } from '../../server/src/store/store.js';

const TEMPLATE = path.resolve(import.meta.dirname, '../../memory-template');

export interface TestStore {
  dir: string;
  ctx: OpContext;
  /** Moves the clock forward. */
  advance: (ms: number) => void;
}

/** `editConfig` rewrites cairn.yaml before the store is opened (e.g. a smaller MEMORY.md cap). */
export async function makeTestStore(
  opts: { editConfig?: (yaml: string) => string; start?: string } = {},
): Promise<TestStore> {
  const dir = path.join(await mkdtemp(path.join(os.tmpdir(), 'cairn-ops-')), 'store');
  await initStore(dir, { templateDir: TEMPLATE, author: { name: 'Test', email: 't@example.com' } });
  if (opts.editConfig) {
    const file = path.join(dir, 'cairn.yaml');
    await writeFile(file, opts.editConfig(await readFile(file, 'utf8')));
  }
  let now = Date.parse(opts.start ?? '2026-11-29T10:00:00Z');
  const store = await openStore({ store: dir });
  const ctx: OpContext = {
    store,
    now: () => new Date(now),
    author: { name: 'Test', email: 't@example.com' },
  };
  return { dir, ctx, advance: (ms) => (now += ms) };
}
