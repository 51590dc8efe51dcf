// "Nothing a person wrote is lost": a memory edited by hand (comments, unknown keys, CRLF, a BOM,
// sections of their own, a footnote, a last line without a newline) keeps every byte outside what
// a command changes, through the ops that rewrite an existing memory. Real git, real files.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { correct } from '../../server/src/ops/edit.js';
import { addFact, closeFact } from '../../server/src/ops/graph.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { git, makeStore, removeDir } from '../helpers/store.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) removeDir(path.dirname(dirs.pop()!));
});

/** A person's memory, written by hand the way people do. */
const HAND = [
  '\ufeff---',
  '# why: this records the cache choice',
  'id: redis-cache',
  "title: 'Use Redis for sessions'",
  'kind: decision',
  'owner: ops-team   # unknown key',
  'updated: 2026-11-01T09:00:00Z',
  'source: {origin: human}',
  'triples: # why: facts from the ADR',
  '  - [app, uses, redis]  # pinned',
  '---',
  'We chose Redis über Memcached.\t ',
  '',
  '## Decisions',
  '- Redis 7[^1]',
  '',
  '---',
  '',
  '## My notes',
  'Hand-written, keep.  ',
  '```yaml',
  '---',
  '## not a heading',
  '```',
  '<!-- a note to myself -->',
  '',
  '[^1]: footnote text',
  'last line without newline',
].join('\r\n');

async function handWritten() {
  const s = await makeStore();
  dirs.push(s.dir);
  const file = path.join(s.dir, 'memories/redis-cache.md');
  writeFileSync(file, HAND);
  git(s.dir, 'add', '-A');
  git(s.dir, 'commit', '-qm', 'a person writes a memory by hand');
  return { ...s, file };
}

/** The text after `marker` in `text` (the part a command should not touch). */
const after = (text: string, marker: string): string => text.slice(text.indexOf(marker));

describe('a hand-edited memory keeps what the command does not change', () => {
  it('cairn correct replaces the context only: the sections below, the footnote and the last line stay', async () => {
    const { ctx, file } = await handWritten();
    await correct(ctx, 'redis-cache', 'We chose Redis over Memcached for persistence.');
    const out = readFileSync(file, 'utf8');
    expect(out).toContain('\r\nWe chose Redis over Memcached for persistence.\r\n');
    expect(out).not.toContain('über');
    expect(after(out, '## Decisions')).toBe(after(HAND, '## Decisions'));
    expect(out.slice(0, out.indexOf('updated:'))).toBe(HAND.slice(0, HAND.indexOf('updated:')));
    expect(after(out, 'source:')).toContain(HAND.slice(HAND.indexOf('source:'), HAND.indexOf('---\r\nWe')));
  });

  it('an update by id replaces what it restates: comments, other sections, the footnote and the last line stay', async () => {
    const { ctx, file } = await handWritten();
    const r = await storeMemory(
      ctx,
      {
        topic: 'Use Redis for sessions',
        context: 'We chose Redis over Memcached.',
        decisions: ['Redis 7.2'],
        triples: [
          { s: 'app', p: 'uses', o: 'redis' },
          { s: 'redis', p: 'version', o: '7.2' },
        ],
        origin: 'human',
        metadata: { topicId: 'redis-cache' },
      },
      { channel: 'person' },
    );
    expect(r.staged).toBe(false);
    const out = readFileSync(file, 'utf8');
    expect(out).toContain('triples: # why: facts from the ADR\r\n  - [app, uses, redis]  # pinned\r\n');
    // The restated section is replaced whole (the `---` under it was part of it); the rest stays.
    expect(out).toContain('## Decisions\r\n\r\n- Redis 7.2\r\n\r\n## My notes');
    expect(after(out, '## My notes')).toBe(after(HAND, '## My notes'));
    expect(out.startsWith('\ufeff---\r\n# why: this records the cache choice\r\n')).toBe(true);
  });
});

it("the byte order mark of a person's file is no hidden text when an agent updates it", async () => {
  const { ctx } = await handWritten();
  const r = await storeMemory(ctx, {
    topic: 'Use Redis for sessions',
    context: 'We chose Redis over Memcached.',
    origin: 'conversation',
    confidence: 0.9,
    agentName: 'copilot',
    metadata: { topicId: 'redis-cache' },
  });
  expect(r.findings).toEqual([]);
  expect(r.reason).toBe('an agent update of a memory a person last wrote is reviewed');
});

describe('the knowledge graph changes only the fact it means', () => {
  const FACTS = [
    '---',
    'id: redis-cache',
    'title: Use Redis',
    'kind: decision',
    'source: {origin: human}',
    'triples:',
    '  - [app, uses, redis]',
    "  - {s: redis, p: version, o: '7', note: from ADR-12}  # pinned",
    '  - [half, written]  # to finish',
    '---',
    'Body.',
    '',
  ].join('\n');

  async function withFacts() {
    const s = await makeStore();
    dirs.push(s.dir);
    const file = path.join(s.dir, 'memories/redis-cache.md');
    writeFileSync(file, FACTS);
    git(s.dir, 'add', '-A');
    git(s.dir, 'commit', '-qm', 'a person writes facts by hand');
    return { ...s, file };
  }

  it('adding a fact keeps a fact with keys of its own and an unfinished one', async () => {
    const { ctx, dir, file } = await withFacts();
    await addFact(ctx, { subject: 'app', predicate: 'runs-on', object: 'linux', memoryId: 'redis-cache' });
    // A person wrote it: the agent's fact is proposed (test/mcp/graph-governance.test.ts), main keeps FACTS.
    expect(readFileSync(file, 'utf8')).toBe(FACTS);
    const out = git(dir, 'show', 'candidate/redis-cache:memories/redis-cache.md');
    expect(out).toContain(
      FACTS.slice(FACTS.indexOf('triples:'), FACTS.indexOf('---\nBody')).replace(
        '# to finish\n',
        '# to finish\n  - [app, runs-on, linux]\n',
      ),
    );
  });

  it('closing a fact keeps its other keys and its comment, and the other items', async () => {
    const { ctx, dir, file } = await withFacts();
    await closeFact(ctx, { subject: 'redis', predicate: 'version', until: '2026-12-01' });
    // An operation without a writer is an agent's, and a person wrote the memory: the close is a
    // proposal (test/ops/graph.test.ts), main keeps FACTS.
    expect(readFileSync(file, 'utf8')).toBe(FACTS);
    const out = git(dir, 'show', 'candidate/redis-cache:memories/redis-cache.md');
    expect(out).toContain(
      "  - {s: redis, p: version, o: '7', note: from ADR-12, until: 2026-12-01}  # pinned\n" +
        '  - [half, written]  # to finish\n',
    );
  });

  it('a fact added to a memory whose triples is not a list is refused, nothing changed', async () => {
    const { ctx, dir, file } = await withFacts();
    const odd = FACTS.replace(/triples:[^]*?---/, 'triples: see the ADR\n---');
    writeFileSync(file, odd);
    git(dir, 'commit', '-qam', 'a person writes a note in triples');
    const head = git(dir, 'rev-parse', 'HEAD');
    await expect(
      addFact(ctx, { subject: 'app', predicate: 'runs-on', object: 'linux', memoryId: 'redis-cache' }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/not a list/) });
    expect(readFileSync(file, 'utf8')).toBe(odd);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });
});
