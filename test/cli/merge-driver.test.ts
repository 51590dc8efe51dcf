// `cairn merge-driver BASE OURS THEIRS PATH` as git runs it, on the fixture triples in
// test/fixtures/merge/<case>/{base,ours,theirs,expected}.md (path.txt: the file's path in the
// repository, default memories/<case>.md). The result replaces OURS; exit 0 when clean, 1 when
// conflict markers were left; the in-process merge gives the same text. An expected result with
// `||||||| base` sections is run with git's merge.conflictStyle=diff3.
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mergeFile } from '../../server/src/core/merge/index.js';
import { shellWord } from '../../server/src/ops/merge-driver.js';
import { cairn, removeDir, REPO_ROOT, tempDir } from '../helpers/store.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/merge');
const work = tempDir('cairn-merge-driver-');
afterAll(() => removeDir(work));

function loadCase(name: string) {
  const dir = path.join(FIXTURES, name);
  const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
  const pathFile = path.join(dir, 'path.txt');
  return {
    dir,
    path: existsSync(pathFile) ? read('path.txt').trim() : `memories/${name}.md`,
    base: read('base.md'),
    ours: read('ours.md'),
    theirs: read('theirs.md'),
    expected: read('expected.md'),
  };
}

/** Runs the built driver on copies of the case's files; returns the exit code and the new OURS. */
async function runDriver(name: string, filePath: string, diff3: boolean) {
  const dir = path.join(work, name);
  const files = ['base', 'ours', 'theirs'].map((f) => path.join(dir, `.merge_file_${f}`));
  readdirSync(FIXTURES); // the cases exist
  await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
  ['base', 'ours', 'theirs'].forEach((f, i) => copyFileSync(path.join(FIXTURES, name, `${f}.md`), files[i]));
  const env = diff3
    ? { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'merge.conflictStyle', GIT_CONFIG_VALUE_0: 'diff3' }
    : {};
  const r = await cairn(['merge-driver', ...files, filePath], { cwd: dir, env });
  return { ...r, result: readFileSync(files[1], 'utf8'), files };
}

describe('the merge driver on fixture triples', () => {
  for (const name of readdirSync(FIXTURES).sort()) {
    it(name, async () => {
      const c = loadCase(name);
      const conflicted = c.expected.includes('<<<<<<<');
      const diff3 = c.expected.includes('|||||||');
      const inProcess = mergeFile({
        path: c.path,
        base: c.base,
        ours: c.ours,
        theirs: c.theirs,
        showBase: diff3,
      });
      expect(inProcess.text).toBe(c.expected);
      expect(inProcess.conflicts > 0).toBe(conflicted);
      const r = await runDriver(name, c.path, diff3);
      expect(r.result).toBe(c.expected);
      expect(r.code).toBe(conflicted ? 1 : 0);
      if (conflicted) expect(r.stderr).toContain(`${c.path}: ${inProcess.conflicts} conflict`);
      else expect(r.stderr).toBe('');
      // Base and theirs are read, never written.
      expect(readFileSync(r.files[0], 'utf8')).toBe(c.base);
      expect(readFileSync(r.files[2], 'utf8')).toBe(c.theirs);
    });
  }
});

describe('the merge driver never fails on what it is given', () => {
  it('merges bytes that are not UTF-8 line by line, byte for byte', async () => {
    const dir = path.join(work, 'binary');
    await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
    const [base, ours, theirs] = ['base', 'ours', 'theirs'].map((f) => path.join(dir, f));
    writeFileSync(base, Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x63, 0x0a]));
    writeFileSync(ours, Buffer.from([0x41, 0x0a, 0xff, 0xfe, 0x0a, 0x63, 0x0a]));
    writeFileSync(theirs, Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a, 0x43, 0x00, 0x0a]));
    const r = await cairn(['merge-driver', base, ours, theirs, 'memories/odd.md'], { cwd: dir });
    expect(r.code).toBe(0);
    expect([...readFileSync(ours)]).toEqual([0x41, 0x0a, 0xff, 0xfe, 0x0a, 0x43, 0x00, 0x0a]);
  });

  it('merges YAML it cannot read by key line by line, with markers where both changed a line', async () => {
    const dir = path.join(work, 'bad-yaml');
    await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
    const [base, ours, theirs] = ['base', 'ours', 'theirs'].map((f) => path.join(dir, f));
    writeFileSync(base, '---\nid: x\ntitle: [unclosed\nkind: note\n---\n\nText.\n');
    writeFileSync(ours, '---\nid: x\ntitle: [still unclosed\nkind: note\n---\n\nText.\n');
    writeFileSync(theirs, '---\nid: x\ntitle: [unclosed\nkind: fact\n---\n\nMore text.\n');
    const r = await cairn(['merge-driver', base, ours, theirs, 'memories/x.md'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(ours, 'utf8')).toBe(
      '---\nid: x\ntitle: [still unclosed\nkind: fact\n---\n\nMore text.\n',
    );
  });

  it('takes a path that starts with a dash, and says how to call it when arguments are missing', async () => {
    const dir = path.join(work, 'dash');
    await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
    for (const f of ['-base', '-ours', '-theirs']) writeFileSync(path.join(dir, f), 'a\n');
    writeFileSync(path.join(dir, '-theirs'), 'b\n');
    const ok = await cairn(['merge-driver', '-base', '-ours', '-theirs', '-x.md'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(readFileSync(path.join(dir, '-ours'), 'utf8')).toBe('b\n');
    const bad = await cairn(['merge-driver', 'only-one'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cairn merge-driver BASE OURS THEIRS PATH');
    const missing = await cairn(['merge-driver', 'no-base', '-ours', '-theirs', 'x.md'], { cwd: dir });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('cannot read no-base');
    expect(readFileSync(path.join(dir, '-ours'), 'utf8')).toBe('b\n');
  });
});

describe('the registered command line', () => {
  it('quotes paths so that the shell git runs it with gives them back unchanged', () => {
    for (const word of [
      '/usr/bin/node',
      '/opt/My Tools/node',
      "/home/o'neil/cairn.js",
      'C:\\Program Files\\node.exe',
    ]) {
      const echoed = execFileSync('sh', ['-c', `printf %s ${shellWord(word)}`], { encoding: 'utf8' });
      expect(echoed).toBe(word);
    }
    expect(shellWord('/usr/bin/node')).toBe('/usr/bin/node');
  });
});
