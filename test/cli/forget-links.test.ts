// `cairn forget` of a memory MEMORY.md links (a new store's sample memory, which its MEMORY.md
// names) left `cairn check` failing on "unknown memory ...: fix the id or create memories/x.md",
// which read as if the memory had never existed. forget now says which lines still link it, and the
// check's message names forgetting as a cause. Real CLI, real store.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const stores = cliStores();

describe('cairn forget of a memory MEMORY.md links', () => {
  it('names the lines that still link it, and check says it may be forgotten', async () => {
    const s = await stores.newStore();
    const forgot = await s.run('forget', 'cairn-store-conventions', '--why', 'not needed');
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toMatch(
      /note: MEMORY\.md:\d+, MEMORY\.md:\d+ still link \[\[cairn-store-conventions\]\]: remove the link/,
    );
    const check = await s.run('check');
    expect(check.stdout).toMatch(/ref\/unknown .*\(never stored, or forgotten\); fix or remove the link/);
  });

  it('names every memory and daily note that links it, with file:line, where check finds ref/unknown', async () => {
    // forget named MEMORY.md's lines only: a memory whose body said "see [[x]]", or that superseded
    // x, was left dangling unnamed until `cairn check` failed on it.
    const s = await stores.newStore();
    const target = await s.store({ topic: 'Use Redis', context: 'Sessions live in Redis 7.' });
    const id: string = target.metadata.topic_id;
    const linking = await s.store({
      topic: 'Cache keys',
      context: `Keys are namespaced per tenant.\n\nSee [[${id}]] for where sessions live.`,
    });
    expect(linking.code).toBe(0);
    const successor = await s.store({
      topic: 'Use Valkey',
      context: 'Sessions live in Valkey 8.',
      supersedes: [id],
    });
    expect(successor.code).toBe(0);
    mkdirSync(path.join(s.dir, 'daily'), { recursive: true });
    writeFileSync(path.join(s.dir, 'daily/2026-11-29.md'), `# 2026-11-29\n\n- moved off [[${id}]]\n`);
    git(s.dir, 'add', 'daily');
    git(s.dir, 'commit', '-q', '-m', 'daily note');
    const lineOf = (file: string, needle: string) =>
      readFileSync(path.join(s.dir, file), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(needle)) + 1;
    const where = [
      `memories/${linking.metadata.topic_id}.md:${lineOf(linking.metadata.path, `[[${id}]]`)}`,
      `memories/${successor.metadata.topic_id}.md:${lineOf(successor.metadata.path, id)}`,
      'daily/2026-11-29.md:3',
    ];
    const forgot = await s.run('forget', id, '--json');
    expect(forgot.code).toBe(0);
    expect(
      JSON.parse(forgot.stdout).stillLinked.map((l: { path: string; line: number }) => `${l.path}:${l.line}`),
    ).toEqual(where);
    // What check reports is what forget named.
    const check = await s.run('check', '--json');
    const unknown = (JSON.parse(check.stdout).findings as { path: string; code: string; line: number }[])
      .filter((f) => f.code === 'ref/unknown')
      .map((f) => `${f.path}:${f.line}`)
      .sort();
    expect(unknown).toEqual([...where].sort());
  });

  it('one line that links it: "links"', async () => {
    const s = await stores.newStore();
    const target = await s.store({ topic: 'Use Redis', context: 'Sessions live in Redis 7.' });
    const id: string = target.metadata.topic_id;
    await s.store({ topic: 'Cache keys', context: `Keys are namespaced.\n\nSee [[${id}]].` });
    const forgot = await s.run('forget', id);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).toMatch(
      new RegExp(`note: memories/cache-keys\\.md:\\d+ still links \\[\\[${id}\\]\\]`),
    );
  });

  it('says nothing more when nothing links it', async () => {
    const s = await stores.newStore();
    const stored = await s.store({ topic: 'Use Redis', context: 'Sessions live in Redis 7.' });
    expect(stored.code).toBe(0);
    const forgot = await s.run('forget', stored.metadata.topic_id);
    expect(forgot.code).toBe(0);
    expect(forgot.stdout).not.toContain('note:');
  });
});
