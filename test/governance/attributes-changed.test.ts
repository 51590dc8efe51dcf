// `.gitattributes` decides whether git merges memory files with the memory merge (by key, by
// section) or line by line; `merge=union` keeps both sides of a conflicting edit without a word, so
// a fact and its correction both stay. A pull request that changed it passed `cairn check --changed`
// silently. The check now names it: an error when it stops sending store files to the driver, a
// warning for store files that were not sent to it before either. Built CLI, real git.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cairn, cliStores, git, projectStores } from '../helpers/store.js';

const { newStore } = cliStores();

/** A branch off main that rewrites `file` (in `repo`) with `edit`, committed, left checked out. */
function branchEditing(repo: string, file: string, edit: (text: string) => string): void {
  git(repo, 'checkout', '-q', '-b', 'pr');
  const at = path.join(repo, file);
  writeFileSync(at, edit(readFileSync(at, 'utf8')));
  git(repo, 'commit', '-qam', `change ${file}`);
}

const lineOf = (text: string, prefix: string) => text.split('\n').findIndex((l) => l.startsWith(prefix)) + 1;

describe('cairn check --changed on a change to .gitattributes', () => {
  it('memories sent to merge=union instead of the memory merge: an error on the line', async () => {
    const s = await newStore();
    branchEditing(s.dir, '.gitattributes', (t) =>
      t.replace('memories/*.md merge=cairn', 'memories/*.md merge=union'),
    );
    const r = await s.run('check', '--changed', 'main');
    expect(r.code).toBe(1);
    const line = lineOf(readFileSync(path.join(s.dir, '.gitattributes'), 'utf8'), 'memories/*.md');
    expect(r.stdout).toMatch(
      new RegExp(
        `^\\.gitattributes:${line}:1: error store/merge-driver-dropped .*memories/\\*\\.md .*merge=union`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/in 1 of 1 file\(s\)/); // .gitattributes counts as checked
  });

  it('a deleted line (MEMORY.md merged line by line) is an error too', async () => {
    const s = await newStore();
    branchEditing(s.dir, '.gitattributes', (t) => t.replace(/^MEMORY\.md merge=cairn\n/m, ''));
    const r = await s.run('check', '--changed', 'main', '--json');
    expect(r.code).toBe(1);
    const codes = JSON.parse(r.stdout).findings.map((f: { code: string; message: string }) => [
      f.code,
      f.message,
    ]);
    expect(codes).toEqual([['store/merge-driver-dropped', expect.stringContaining('MEMORY.md')]]);
  });

  it('a change that keeps the memory merge says nothing; the same files unchanged are not examined', async () => {
    const s = await newStore();
    branchEditing(s.dir, '.gitattributes', (t) => `${t}*.png binary\n`);
    const r = await s.run('check', '--changed', 'main');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cairn check: 1 file checked, no findings$/m);
    // A change that does not touch .gitattributes does not examine it.
    git(s.dir, 'checkout', '-q', 'main');
    git(s.dir, 'checkout', '-q', '-b', 'other');
    appendFileSync(path.join(s.dir, 'MEMORY.md'), '\n- a note\n');
    git(s.dir, 'commit', '-qam', 'note');
    expect((await s.run('check', '--changed', 'main')).stdout).toMatch(/^cairn check: 1 file checked/m);
  });

  it('a store that already used merge=union (made before the driver): a warning, not an error', async () => {
    const s = await newStore();
    const file = path.join(s.dir, '.gitattributes');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('memories/*.md merge=cairn', 'memories/*.md merge=union'),
    );
    git(s.dir, 'commit', '-qam', 'old store');
    branchEditing(s.dir, '.gitattributes', (t) => `${t}*.png binary\n`);
    const r = await s.run('check', '--changed', 'main', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).findings).toEqual([
      expect.objectContaining({ code: 'store/merge-unrouted', severity: 'warning', path: '.gitattributes' }),
    ]);
  });
});

describe('a store in a subfolder of a project', () => {
  const { newProject } = projectStores();

  it('a .gitattributes deeper in the store that sends memories to union is caught too', async () => {
    const repo = await newProject({ '.gitattributes': '*.js text\n' });
    // The project's root file cannot override the store's own (the deeper file wins) ...
    git(repo, 'checkout', '-q', '-b', 'pr');
    appendFileSync(path.join(repo, '.gitattributes'), '*.md merge=union\n');
    git(repo, 'commit', '-qam', 'root attributes');
    expect((await cairn(['check', '--changed', 'main', '--store', path.join(repo, 'mem')])).code).toBe(0);
    // ... but one deeper than the store's can.
    writeFileSync(path.join(repo, 'mem/memories/.gitattributes'), '*.md merge=union\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'deeper attributes');
    const r = await cairn(['check', '--changed', 'main', '--store', path.join(repo, 'mem'), '--json']);
    expect(r.code).toBe(1);
    const dropped = JSON.parse(r.stdout).findings.filter(
      (f: { code: string }) => f.code === 'store/merge-driver-dropped',
    );
    expect(dropped.map((f: { message: string }) => f.message.split(' ')[4])).toEqual(['memories/*.md']);
  });
});
