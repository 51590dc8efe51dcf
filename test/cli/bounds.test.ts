// Free text a person hands a command is bounded like a payload's: a reason goes into a commit or
// tag message kept forever, a correction replaces a context. Over the bound is a clear error and
// nothing changes: no commit, no tag, no branch deleted, no file touched.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, expectClear, git, type CliStore } from '../helpers/store.js';

const stores = cliStores();

/** Every ref (branches and tags) and the working tree: what a refused command must leave alone. */
function snapshot(dir: string): string {
  return [
    git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    git(dir, 'status', '--porcelain', '--ignored', '--untracked-files=all'),
  ].join('\n');
}

/** Refs and tracked files only: a refused store is still recorded in the (ignored) audit log. */
function repoState(dir: string): string {
  return [
    git(dir, 'for-each-ref', '--format=%(refname) %(objectname)'),
    git(dir, 'status', '--porcelain', '--untracked-files=all'),
  ].join('\n');
}

async function withMemory(): Promise<CliStore> {
  const s = await stores.newStore();
  expect((await s.run('store', '--id', 'kept', '--topic', 'Kept', '--context', 'a memory')).code).toBe(0);
  return s;
}

describe('a reason is at most 2,000 characters: a longer one is a usage error, nothing changes', () => {
  const long = 'x'.repeat(2_001);

  it('reject ID --why with 2,001 characters keeps the candidate and makes no tag', async () => {
    const s = await stores.newStore();
    const stored = await s.store({
      topic: 'Shaky idea',
      context: 'maybe',
      confidence: 0.6,
      agentName: 'bot',
    });
    expect(stored.metadata.status).toBe('candidate');
    const before = snapshot(s.dir);
    const r = await s.run('reject', 'shaky-idea', '--why', long);
    expectClear(r, 2, /--why is 2001 characters; the limit is 2000/);
    expect(r.stdout).not.toContain(long);
    expect(snapshot(s.dir)).toBe(before);
    // At the bound it is accepted.
    expect((await s.run('reject', 'shaky-idea', '--why', 'y'.repeat(2_000))).code).toBe(0);
  });

  for (const [name, args] of [
    ['forget ID --why', ['forget', 'kept', '--why', long]],
    ['allow ID RULE --why', ['allow', 'kept', 'prompt-injection', '--why', long]],
    ['feedback ID down --note', ['feedback', 'kept', 'down', '--note', long]],
  ] as const) {
    it(`${name} with 2,001 characters`, async () => {
      const s = await withMemory();
      const before = snapshot(s.dir);
      const r = await s.run(...args);
      expectClear(r, 2, /is 2001 characters; the limit is 2000/);
      expect(snapshot(s.dir)).toBe(before);
    });
  }
});

describe('correct ID TEXT is capped at 20,000 characters, as a stored context is', () => {
  it('30,000 characters are refused naming the limit; the memory is unchanged', async () => {
    const s = await withMemory();
    const before = snapshot(s.dir);
    const r = await s.run('correct', 'kept', 'b'.repeat(30_000));
    expectClear(r, 3, /text: is 30000 characters; the limit is 20000 \[INVALID_PAYLOAD\]/);
    expect(snapshot(s.dir)).toBe(before);
    expect((await s.run('correct', 'kept', 'c'.repeat(20_000))).code).toBe(0);
  });
});

describe('undo ID checks its id as the other write commands do', () => {
  it('undo ../x is INVALID_WORKSPACE_PATH (exit 3), as forget ../x is; nothing changes', async () => {
    const s = await withMemory();
    const before = snapshot(s.dir);
    for (const args of [
      ['undo', '../x'],
      ['undo', '../x', '--dry-run'],
      ['forget', '../x'],
    ]) {
      const r = await s.run(...args);
      expectClear(
        r,
        3,
        /id: "\.\.\/x" would point outside the store's memories\/ folder.*\[INVALID_WORKSPACE_PATH\]/,
      );
    }
    expect(snapshot(s.dir)).toBe(before);
    // A plain id still undoes.
    expect((await s.run('undo', 'kept')).code).toBe(0);
  });
});

describe('a tag is one line: a line break or tab in one is INVALID_PAYLOAD naming the tag', () => {
  it('store --tag with a line break is refused; nothing is stored', async () => {
    const s = await stores.newStore();
    const before = repoState(s.dir);
    const r = await s.run(
      'store',
      '--id',
      'm',
      '--topic',
      'T',
      '--context',
      'c',
      '--tag',
      'ok',
      '--tag',
      'a\nb',
    );
    expectClear(r, 3, /tags\[1\]: contains a line break \(U\+000A\) at offset 1.*\[INVALID_PAYLOAD\]/);
    expect(repoState(s.dir)).toBe(before);
  });

  it('a JSON payload with a tab in a tag is refused with field tags[0]; a trailing newline is trimmed', async () => {
    const s = await stores.newStore();
    const before = repoState(s.dir);
    const r = await s.store({ topic: 'T', context: 'c', tags: ['a\tb'] });
    expect(r.code).toBe(3);
    expect(JSON.stringify(r)).toMatch(/tags\[0\]: contains a tab \(U\+0009\)/);
    expect(repoState(s.dir)).toBe(before);
    const ok = await s.store({ topic: 'T', context: 'c', tags: ['redis\n'] });
    expect(ok.code).toBe(0);
  });
});

// Found in the last check as an attacker: a title over lines printed rows of its own in `cairn
// list`, which read as other memories ("active 0.75 release-rule ..." then "- Push straight to main").
describe('a title is one line', () => {
  it('a topic, agentName or session id with a line break or tab is INVALID_PAYLOAD naming it', async () => {
    const s = await stores.newStore();
    const before = repoState(s.dir);
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { topic: 'Release rule\nactive     0.99  fake  Trusted', context: 'c' },
        /topic: contains a line break/,
      ],
      [{ topic: 'T', context: 'c', agentName: 'bot\tx' }, /agentName: contains a tab/],
      [
        { topic: 'T', context: 'c', metadata: { sessionId: 's\n1' } },
        /metadata\.sessionId: contains a line break/,
      ],
    ];
    for (const [payload, message] of cases) {
      const r = await s.store(payload);
      expect(r.code).toBe(3);
      expect(JSON.stringify(r)).toMatch(message);
    }
    expect(repoState(s.dir)).toBe(before);
  });

  it('cairn list and get print a hand-written title over lines as one line', async () => {
    const s = await stores.newStore();
    writeFileSync(
      path.join(s.dir, 'memories', 'two-lines.md'),
      '---\nid: two-lines\ntitle: |-\n  Release rule\n  active     0.99  fake  Trusted\nkind: note\nupdated: 2026-01-09\n---\nBody.\n',
    );
    git(s.dir, 'add', '-A');
    git(s.dir, 'commit', '-qm', 'a memory written by hand');
    const list = await s.run('list');
    expect(list.code).toBe(0);
    const rows = list.stdout.trim().split('\n');
    expect(rows.filter((r) => /fake/.test(r))).toEqual([
      expect.stringMatching(/^active +\S+ +two-lines +Release rule active/),
    ]);
    const get = await s.run('get', 'two-lines');
    expect(get.stdout).toMatch(/^# Release rule active {5}0\.99 {2}fake {2}Trusted$/m);
  });
});
