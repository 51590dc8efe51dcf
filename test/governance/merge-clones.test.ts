// Issue 10, the merge driver: two people edit one memory in two clones of a bare `origin` and pull
// each other's work with plain git. With `cairn setup` the pull merges by key and section; without
// it, the same pull stops on the `updated:` line. The built CLI and the git CLI, side by side.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cairn, git, GIT_ENV, removeDir, tempDir } from '../helpers/store.js';
import { execFileSync } from 'node:child_process';

const MEMORY = 'memories/cairn-store-conventions.md';
const UPDATED = 'updated: 2026-11-29T09:00:00Z';

const parents: string[] = [];
afterEach(() => {
  while (parents.length) removeDir(parents.pop()!);
});

/** A store pushed to a bare origin, and two clones of it; `setup` runs `cairn setup` in each. */
async function team(opts: { setup: boolean }) {
  const parent = tempDir('cairn-merge-clones-');
  parents.push(parent);
  const origin = path.join(parent, 'origin.git');
  git(parent, 'init', '-q', '--bare', '-b', 'main', origin);
  const seed = path.join(parent, 'seed');
  expect((await cairn(['init', seed])).code).toBe(0);
  git(seed, 'remote', 'add', 'origin', `file://${origin}`);
  git(seed, 'push', '-q', 'origin', 'main');
  const clone = async (name: string) => {
    const dir = path.join(parent, name);
    git(parent, 'clone', '-q', `file://${origin}`, dir);
    if (opts.setup) {
      const r = await cairn(['setup', '--json'], { cwd: dir });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ success: true, changed: true, unrouted: [] });
    }
    const file = (rel = MEMORY) => path.join(dir, rel);
    return {
      dir,
      read: (rel = MEMORY) => readFileSync(file(rel), 'utf8'),
      edit: (change: (text: string) => string, rel = MEMORY) => {
        writeFileSync(file(rel), change(readFileSync(file(rel), 'utf8')));
      },
      commit: (message: string) => git(dir, 'commit', '-qam', message),
      push: () => git(dir, 'push', '-q', 'origin', 'main'),
      /** `git pull` (a merge); the exit status and output instead of a throw. */
      pull: () => {
        try {
          const out = execFileSync('git', ['pull', '--no-rebase', 'origin', 'main'], {
            cwd: dir,
            env: { ...process.env, ...GIT_ENV },
            encoding: 'utf8',
            stdio: 'pipe',
          });
          return { code: 0, out };
        } catch (e) {
          const err = e as { status: number; stdout: string; stderr: string };
          return { code: err.status, out: err.stdout + err.stderr };
        }
      },
      cairn: (...args: string[]) => cairn(args, { cwd: dir }),
    };
  };
  return { ana: await clone('ana'), ben: await clone('ben') };
}

/** Ana edits Decisions and Ben edits Next steps; both bump `updated:` (Ben's later); Ana pushes first. */
async function editDifferentSections(setup: boolean) {
  const { ana, ben } = await team({ setup });
  ana.edit((t) =>
    t
      .replace(UPDATED, 'updated: 2026-12-01T10:00:00Z')
      .replace('- One memory per file', '- Exactly one memory per file'),
  );
  ana.commit('ana: sharpen a decision');
  ana.push();
  ben.edit((t) =>
    t
      .replace(UPDATED, 'updated: 2026-12-02T08:00:00Z')
      .replace('- Run `cairn review` regularly', '- Run `cairn review` every morning'),
  );
  ben.commit('ben: a concrete next step');
  return { ana, ben, pull: ben.pull() };
}

describe('concurrent edits of one memory, pulled with plain git', () => {
  it('edits of different sections merge with no conflict; updated is the later; both edits kept', async () => {
    const { ana, ben, pull } = await editDifferentSections(true);
    expect(pull.code).toBe(0);
    const text = ben.read();
    expect(text).toContain('updated: 2026-12-02T08:00:00Z');
    expect(text).toContain('- Exactly one memory per file');
    expect(text).toContain('- Run `cairn review` every morning');
    expect(text).not.toMatch(/^(<{7}|={7}|>{7})/m);
    expect(git(ben.dir, 'status', '--porcelain')).toBe('');
    expect(git(ben.dir, 'log', '-1', '--format=%p').trim().split(' ')).toHaveLength(2);
    const check = await ben.cairn('check', '--format', 'json');
    expect(check.code).toBe(0);
    // Ana pulls Ben's merge as a fast-forward: both clones hold the same file.
    ben.push();
    expect(ana.pull().code).toBe(0);
    expect(ana.read()).toBe(text);
  });

  it('without the driver registered, the same pull conflicts on the updated line', async () => {
    const { ben, pull } = await editDifferentSections(false);
    expect(pull.code).toBe(1);
    expect(pull.out).toContain(`CONFLICT (content): Merge conflict in ${MEMORY}`);
    const text = ben.read();
    expect(text).toMatch(
      /<<<<<<< HEAD\nupdated: 2026-12-02T08:00:00Z\n=======\nupdated: 2026-12-01T10:00:00Z\n>>>>>>> /,
    );
    const status = await ben.cairn('status');
    expect(status.stdout).toContain(
      'the memory merge driver is not registered in this clone: run `cairn setup`',
    );
  });

  it('tags and triples added on both sides are both kept', async () => {
    const { ana, ben } = await team({ setup: true });
    ana.edit((t) =>
      t
        .replace('tags: [cairn, conventions]', 'tags: [cairn, conventions, onboarding]')
        .replace(
          '  - [memory-store, managed-by, cairn]\n',
          '  - [memory-store, managed-by, cairn]\n  - [cairn, runs-on, node]\n',
        ),
    );
    ana.commit('ana: tag and fact');
    ana.push();
    ben.edit((t) =>
      t
        .replace('tags: [cairn, conventions]', 'tags: [cairn, conventions, review]')
        .replace(
          '  - [memory-store, managed-by, cairn]\n',
          '  - [memory-store, managed-by, cairn]\n  - [cairn, stores, markdown]\n',
        ),
    );
    ben.commit('ben: tag and fact');
    expect(ben.pull().code).toBe(0);
    const text = ben.read();
    expect(text).toContain('tags: [cairn, conventions, review, onboarding]');
    expect(text).toContain('  - [cairn, stores, markdown]\n');
    expect(text).toContain('  - [cairn, runs-on, node]\n');
    const shown = JSON.parse((await ben.cairn('get', 'cairn-store-conventions', '--json')).stdout);
    expect(shown.tags).toEqual(['cairn', 'conventions', 'review', 'onboarding']);
  });

  it('MEMORY.md entries appended in both clones are all kept, in time order', async () => {
    const { ana, ben } = await team({ setup: true });
    const entry = (ts: string, text: string) => `\n<!-- cairn:entry ${ts} -->\n${text}\n`;
    ana.edit((t) => t + entry('2026-12-01T10:00:00.000Z', 'Deploys go out on Tuesdays.'), 'MEMORY.md');
    ana.commit('ana: note');
    ana.push();
    ben.edit((t) => t + entry('2026-12-01T09:00:00.000Z', 'Staging resets nightly.'), 'MEMORY.md');
    ben.commit('ben: note');
    expect(ben.pull().code).toBe(0);
    const text = ben.read('MEMORY.md');
    expect(text.indexOf('Staging resets nightly.')).toBeGreaterThan(0);
    expect(text.indexOf('Deploys go out on Tuesdays.')).toBeGreaterThan(
      text.indexOf('Staging resets nightly.'),
    );
  });

  it('both editing the same line of the context is a true conflict, marked only there, and check reports it', async () => {
    const { ana, ben } = await team({ setup: true });
    const line =
      'This store keeps what our coding agents learn, as markdown files in git. Agents write memories;';
    ana.edit((t) =>
      t
        .replace(UPDATED, 'updated: 2026-12-01T10:00:00Z')
        .replace(line, 'This store keeps what our agents learn. Agents write memories;'),
    );
    ana.commit('ana: context');
    ana.push();
    ben.edit((t) =>
      t
        .replace(UPDATED, 'updated: 2026-12-02T10:00:00Z')
        .replace(line, 'This store holds what coding agents learn, in git. Agents write memories;')
        .replace('- Run `cairn review` regularly', '- Run `cairn review` daily'),
    );
    ben.commit('ben: context');
    const pull = ben.pull();
    expect(pull.code).toBe(1);
    expect(pull.out).toContain(`cairn: ${MEMORY}: 1 conflict left between <<<<<<< and >>>>>>> markers`);
    const text = ben.read();
    const lines = text.split('\n');
    const markerLines = lines.flatMap((l, i) => (/^(<{7}|={7}|>{7}|\|{7})/.test(l) ? [i] : []));
    expect(markerLines.map((i) => lines[i])).toEqual(['<<<<<<< ours', '=======', '>>>>>>> theirs']);
    // Only the line both changed sits between the markers; everything else merged.
    expect(lines.slice(markerLines[0] + 1, markerLines[2])).toEqual([
      'This store holds what coding agents learn, in git. Agents write memories;',
      '=======',
      'This store keeps what our agents learn. Agents write memories;',
    ]);
    expect(text).toContain('updated: 2026-12-02T10:00:00Z');
    expect(text).toContain('- Run `cairn review` daily');
    const check = await ben.cairn('check', '--format', 'json');
    expect(check.code).toBe(1);
    const findings = JSON.parse(check.stdout).findings.filter((f: { path: string }) => f.path === MEMORY);
    expect(findings.map((f: { code: string }) => f.code)).toEqual([
      'conflict-markers',
      'conflict-markers',
      'conflict-markers',
    ]);
    const status = await ben.cairn('status');
    expect(status.stdout).toContain(`unresolved merge conflict in ${MEMORY} (markers on lines`);
  });
});

describe('registering the driver', () => {
  it('cairn init registers it; cairn setup is idempotent; status says when it is missing or stale', async () => {
    const parent = tempDir('cairn-setup-');
    parents.push(parent);
    const dir = path.join(parent, 'mem with space');
    const init = await cairn(['init', dir, '--json']);
    expect(init.code).toBe(0);
    const driver = git(dir, 'config', '--get', 'merge.cairn.driver').trim();
    expect(JSON.parse(init.stdout).mergeDriver).toBe(driver);
    expect(driver).toMatch(/ merge-driver %O %A %B %P$/);
    expect(git(dir, 'config', '--get', 'merge.cairn.name').trim()).toBe('Cairn memory merge');
    const config = readFileSync(path.join(dir, '.git/config'), 'utf8');
    const again = JSON.parse((await cairn(['setup', '--json'], { cwd: dir })).stdout);
    expect(again).toMatchObject({ success: true, changed: false, driver, unrouted: [] });
    expect(readFileSync(path.join(dir, '.git/config'), 'utf8')).toBe(config);
    expect((await cairn(['status'], { cwd: dir })).stdout).not.toContain('merge driver');
    // A driver pointing at a Cairn that is gone is reported, and setup repairs it.
    git(dir, 'config', 'merge.cairn.driver', "'/gone/node' '/gone/bin/cairn.js' merge-driver %O %A %B %P");
    const stale = await cairn(['status', '--json'], { cwd: dir });
    expect(JSON.parse(stale.stdout).mergeDriver).toMatchObject({
      registered: true,
      problem: expect.stringContaining('/gone/node'),
    });
    const fixed = JSON.parse((await cairn(['setup', '--json'], { cwd: dir })).stdout);
    expect(fixed).toMatchObject({ changed: true, driver });
  });

  it('setup names the store files its .gitattributes does not send to the driver', async () => {
    const parent = tempDir('cairn-setup-');
    parents.push(parent);
    const dir = path.join(parent, 'mem');
    expect((await cairn(['init', dir])).code).toBe(0);
    writeFileSync(path.join(dir, '.gitattributes'), 'MEMORY.md merge=union\nmemories/*.md merge=cairn\n');
    const r = await cairn(['setup'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('already registered');
    expect(r.stdout).toContain('.gitattributes does not send MEMORY.md, daily/*.md to it');
  });
});
