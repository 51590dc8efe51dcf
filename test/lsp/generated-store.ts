// A generated store of many memories, committed once with the git CLI and copied for each test as a
// fresh clone (no .cairn, nothing indexed): big enough that a cold build is still running while a
// test talks to the server. Shared by the tests that need one.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain JavaScript module shared with the benchmarks
import { generateStore } from '../../bench/search-gen.mjs';
import { git } from './lsp-helper.js';

export function generatedStores(name: string, memories: number) {
  const template = path.join(os.tmpdir(), `${name}-${process.pid}`);
  const copies: string[] = [];
  return {
    /** Generates and commits the template (in beforeAll: it takes seconds). */
    create(): void {
      (generateStore as (dir: string, count: number) => void)(template, memories);
      rmSync(path.join(template, '.generated'), { force: true });
      writeFileSync(path.join(template, 'cairn.yaml'), 'version: 1\n');
      writeFileSync(path.join(template, '.gitignore'), '.cairn/\n');
      git(template, 'init', '-q', '-b', 'main');
      git(template, 'add', '-A');
      git(template, 'commit', '-q', '-m', 'store(init): generated memories');
    },
    /** A fresh clone: every file's stamp is new to git (its first `git status` refreshes). */
    fresh(): string {
      const dir = `${template}-${copies.length}-${Date.now()}`;
      cpSync(template, dir, { recursive: true });
      copies.push(dir);
      return dir;
    },
    /** Removes this test's copies (in afterEach, after the servers are stopped). */
    removeCopies(): void {
      copies.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true, maxRetries: 20 }));
    },
    removeTemplate(): void {
      rmSync(template, { recursive: true, force: true });
    },
  };
}
