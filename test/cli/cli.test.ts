// The CLI as a user runs it: real processes, real stores, transcripts of what they print.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';

let parent: string;
let dir: string;

beforeAll(async () => {
  parent = tempDir();
  dir = path.join(parent, 'mem');
  const r = await cairn(['init', dir]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
});
afterAll(() => removeDir(parent));

const payload = {
  topic: 'Deploys go through the staging cluster',
  context: 'Every deploy goes to staging first; production promotion happens after smoke tests pass.',
  decisions: ['Promote only green builds'],
  origin: 'conversation',
  confidence: 0.95,
  agentName: 'claude',
};

describe('cairn CLI', () => {
  it('init makes a store with one commit and a clean status', () => {
    expect(git(dir, 'log', '--format=%s')).toBe('store(init): new Cairn store from memory-template\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(readFileSync(path.join(dir, 'cairn.yaml'), 'utf8')).toContain('autoFloor');
  });

  // Fails before: the template's MEMORY.md had no generated index, so the first `cairn refresh` on a
  // new store made a commit that only wrote what init should have.
  it('refresh right after init is a no-op: init writes MEMORY.md with its index', async () => {
    const fresh = path.join(parent, 'fresh');
    expect((await cairn(['init', fresh])).code).toBe(0);
    const before = git(fresh, 'rev-parse', 'HEAD');
    const r = await cairn(['refresh', '--json', '--store', fresh]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, changed: false, commit: null });
    expect(git(fresh, 'rev-parse', 'HEAD')).toBe(before);
    expect(readFileSync(path.join(fresh, 'MEMORY.md'), 'utf8')).toContain('<!-- cairn:index end -->');
  });

  // Fails before: isomorphic-git's defaults (filemode false, symlinks false, ignorecase true) on a
  // file system where none holds, so git missed mode changes and read paths case-insensitively.
  it('init writes the core settings `git init` writes on this file system, and the merge driver', () => {
    const plain = path.join(parent, 'plain');
    git(parent, 'init', '-q', plain);
    const config = (d: string) => git(d, 'config', '--file', '.git/config', '--list').trim().split('\n');
    const ours = config(dir);
    expect(ours.filter((l) => !l.startsWith('merge.cairn.'))).toEqual(config(plain));
    expect(ours).toContain('merge.cairn.name=Cairn memory merge');
  });

  it('store reads JSON on stdin and answers JSON', async () => {
    const r = await cairn(['store', '--json'], { cwd: dir, input: JSON.stringify(payload) });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      success: true,
      staged: false,
      metadata: { topic_id: 'deploys-go-through-the-staging-cluster', status: 'active' },
    });
    expect(out.ingested_chars).toBeGreaterThan(100);
  });

  it('store with flags, found from a subfolder via the upward search', async () => {
    const r = await cairn(
      [
        'store',
        '--topic',
        'Lint rules',
        '--context',
        'We use eslint flat config.',
        '--decision',
        'No default exports',
      ],
      {
        cwd: path.join(dir, 'memories'),
      },
    );
    expect(r.stdout).toMatch(/^stored lint-rules \(add, commit [0-9a-f]{8}\)/);
    expect(r.code).toBe(0);
  });

  it('a candidate is reviewed and accepted from the terminal', async () => {
    let r = await cairn(['store', '--store', dir], {
      input: JSON.stringify({ ...payload, topic: 'Nightly job findings', origin: 'background' }),
    });
    expect(r.stdout).toContain('candidate nightly-job-findings on branch candidate/nightly-job-findings');
    r = await cairn(['review', '--store', dir]);
    expect(r.stdout).toContain('1 candidate awaiting review');
    expect(r.stdout).toContain('why a candidate: origin background is always reviewed');
    expect(r.stdout).toContain('+title: Nightly job findings');
    r = await cairn(['accept', 'nightly-job-findings', '--store', dir]);
    expect(r.stdout).toMatch(/^accepted nightly-job-findings: merge commit/);
    r = await cairn(['list', '--store', dir, '--json']);
    const list = JSON.parse(r.stdout);
    expect(list.memories.map((m: { id: string; status: string }) => `${m.id}:${m.status}`)).toEqual([
      'cairn-store-conventions:active',
      'deploys-go-through-the-staging-cluster:active',
      'lint-rules:active',
      'nightly-job-findings:active',
    ]);
  });

  it('log --json carries the audit fields', async () => {
    const r = await cairn(['log', 'deploys-go-through-the-staging-cluster', '--json', '--store', dir]);
    const { entries } = JSON.parse(r.stdout);
    expect(entries[0]).toMatchObject({
      command: 'add',
      agentName: 'claude',
      result: 'committed',
      errorCode: null,
    });
    expect(entries[0].topicDigest).toMatch(/^[0-9a-f]{8}$/);
    expect(Date.parse(entries[0].timestamp)).not.toBeNaN();
  });

  // Found in session 20 (a teammate's plain `git tag rejected/x`): a lightweight tag rejects as an
  // annotated one does, but recorded nobody and no reason, and the log listed it as if it had.
  it('log says when a rejection is a lightweight tag, with no reviewer or reason recorded', async () => {
    // A proposal's commit (it holds the memory's file): a tag on anything else rejects nothing.
    git(dir, 'checkout', '-q', '-b', 'candidate/lw-note', 'main');
    writeFileSync(
      path.join(dir, 'memories', 'lw-note.md'),
      '---\nid: lw-note\ntitle: LW note\n---\n\nA note.\n',
    );
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'memory(add): lw-note');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'tag', 'rejected/lw-note', 'candidate/lw-note');
    git(dir, 'branch', '-q', '-D', 'candidate/lw-note');
    const r = await cairn(['log', 'lw-note', '--json', '--store', dir]);
    const { entries } = JSON.parse(r.stdout);
    expect(entries[0]).toMatchObject({ result: 'rejected', author: null, reason: '' });
    expect(entries[0].subject).toMatch(/lightweight tag.*no reviewer, reason or date/);
    const text = await cairn(['log', 'lw-note', '--store', dir]);
    expect(text.stdout).toMatch(/rejected +reject +lw-note +\(rejected with a lightweight tag/);
    git(dir, 'tag', '-d', 'rejected/lw-note');
  });

  it('get shows a memory by id and exact lines by path', async () => {
    let r = await cairn(['get', 'lint-rules', '--store', dir]);
    expect(r.stdout).toContain('# Lint rules');
    expect(r.stdout).toContain('id lint-rules · active · trust');
    r = await cairn(['get', 'memories/lint-rules.md', '--from', '2', '--lines', '2', '--store', dir]);
    expect(r.stdout).toBe('id: lint-rules\ntitle: Lint rules\n');
  });

  it('exit codes: usage 2, invalid 3, not found 4, not a store 6, dropped 8', async () => {
    expect((await cairn(['frobnicate'])).code).toBe(2);
    expect((await cairn(['reject', 'x', '--store', dir])).code).toBe(2);
    const bad = await cairn(['store', '--json', '--store', dir], { input: '{"topic": "x"}' });
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({
      success: false,
      errorCode: 'INVALID_PAYLOAD',
      field: 'context',
    });
    expect((await cairn(['accept', 'nope', '--store', dir])).code).toBe(4);
    const noStore = await cairn(['list'], { cwd: parent });
    expect(noStore.code).toBe(6);
    expect(noStore.stderr).toContain('cairn init');
    const dropped = await cairn(['store', '--store', dir], {
      input: JSON.stringify({ ...payload, topic: 'Unsure', confidence: 0.2 }),
    });
    expect(dropped.code).toBe(8);
    expect(dropped.stdout).toContain('dropped unsure: confidence 0.2 is below reviewFloor 0.55');
    const escape = await cairn(['get', '../../etc/passwd', '--store', dir]);
    expect(escape.code).toBe(3);
  });

  it('import stores a JSON-lines batch, reporting bad lines with their number', async () => {
    const file = path.join(parent, 'batch.jsonl');
    // No origin in the payloads: an import defaults to origin "import", which is always reviewed.
    const lines = [
      JSON.stringify({ ...payload, origin: undefined, topic: 'Imported one' }),
      '{not json',
      JSON.stringify({ ...payload, origin: undefined, topic: 'Imported two' }),
    ];
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await cairn(['import', file, '--format', 'jsonl', '--store', dir]);
    // Counted honestly: the bad line is not one of the imported.
    expect(r.stdout).toContain(
      'imported 2 of 3 payloads: 0 active, 2 candidates, 0 unchanged, 0 dropped, 1 failed',
    );
    expect(r.stderr).toContain('batch.jsonl:2: not valid JSON');
    expect(r.code).toBe(1);
  });

  it('help lists every command', async () => {
    const r = await cairn(['help']);
    for (const c of [
      'init',
      'store',
      'review',
      'accept',
      'reject',
      'supersede',
      'correct',
      'feedback',
      'undo',
      'log',
      'status',
    ]) {
      expect(r.stdout).toContain(`  ${c}`);
    }
  });
});
