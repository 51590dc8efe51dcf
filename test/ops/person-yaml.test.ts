// A person's YAML through the ops that rewrite part of it (knowledge_graph close, an update by
// memory_store / `cairn store`): the quoting of what did not change, comments inside a flow list
// written over several lines, and anchors (`&x`) another place aliases (`*x`). Real git, real files.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFact } from '../../server/src/ops/graph.js';
import { storeMemory } from '../../server/src/ops/store-memory.js';
import { git, makeStore, removeDir } from '../helpers/store.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) removeDir(path.dirname(dirs.pop()!));
});

async function written(...frontMatter: string[]) {
  const s = await makeStore();
  dirs.push(s.dir);
  const text = [
    '---',
    'id: redis-cache',
    'title: Use Redis',
    'kind: decision',
    ...frontMatter,
    '---',
    'Body.',
    '',
  ].join('\n');
  const file = path.join(s.dir, 'memories/redis-cache.md');
  writeFileSync(file, text);
  git(s.dir, 'add', '-A');
  git(s.dir, 'commit', '-qm', 'a person writes a memory by hand');
  return { ...s, file, text };
}

/** A person's update of the memory (`cairn store` by a person: on main at once). */
const update = (ctx: Parameters<typeof storeMemory>[0], extra: Record<string, unknown>) =>
  storeMemory(
    ctx,
    { topic: 'Use Redis', context: 'Body.', origin: 'human', metadata: { topicId: 'redis-cache' }, ...extra },
    { channel: 'person' },
  );

/**
 * knowledge_graph close of the person's memory: an operation without a writer is an agent's, so the
 * close is proposed (test/ops/graph.test.ts) and main keeps the person's text; the proposal's file.
 */
async function closedByAgent(ctx: Parameters<typeof closeFact>[0], dir: string, file: string, text: string) {
  await closeFact(ctx, { subject: 'redis', predicate: 'version', until: '2026-12-01' });
  expect(readFileSync(file, 'utf8')).toBe(text);
  return git(dir, 'show', 'candidate/redis-cache:memories/redis-cache.md');
}

describe("a changed triple keeps the person's quoting", () => {
  it('knowledge_graph close writes the until and keeps each part as the person quoted it', async () => {
    const { ctx, dir, file, text } = await written(
      'source: {origin: human}',
      'triples:',
      `  - ["redis", 'version', "7.2"]  # pinned`,
    );
    const out = await closedByAgent(ctx, dir, file, text);
    expect(out).toContain(`  - {s: "redis", p: 'version', o: "7.2", until: 2026-12-01}  # pinned\n`);
    expect(out.replace(/\nupdated: .*\n/, '\n')).toBe(
      text.replace(`["redis", 'version', "7.2"]`, `{s: "redis", p: 'version', o: "7.2", until: 2026-12-01}`),
    );
  });

  it('knowledge_graph close of a fact written over several lines adds a line, its comments stay', async () => {
    const { ctx, dir, file, text } = await written(
      'source: {origin: human}',
      'triples:',
      `  - s: redis  # the cache`,
      '    # from ADR-12',
      `    p: "version"`,
      `    o: '7.2'`,
    );
    const out = await closedByAgent(ctx, dir, file, text);
    expect(out.replace(/\nupdated: .*\n/, '\n')).toBe(
      text.replace(`    o: '7.2'\n`, `    o: '7.2'\n    until: 2026-12-01\n`),
    );
  });

  it('an update that changes one object keeps the other parts and the quoting style', async () => {
    const { ctx, file } = await written('triples:', `  - ['app', "uses", 'redis']  # pinned`);
    await update(ctx, { triples: [{ s: 'app', p: 'uses', o: 'valkey' }] });
    expect(readFileSync(file, 'utf8')).toContain(`  - ['app', "uses", 'valkey']  # pinned\n`);
  });
});

const frontMatterOf = (text: string) => text.slice(0, text.indexOf('\n---\n') + 5);

it('an update of a flow list written over several lines keeps the comments inside it', async () => {
  const { ctx, file, text } = await written('tags: [redis, # chosen in ADR-12', '  cache]');
  await update(ctx, { tags: ['redis', 'cache', 'sessions'] });
  const out = readFileSync(file, 'utf8');
  expect(frontMatterOf(out).replace(/\nupdated: .*\n/, '\n')).toBe(
    frontMatterOf(text).replace('  cache]', '  cache, sessions]'),
  );
});

it("an update that drops the first key of a fact written as a map keeps the fact's comments", async () => {
  // Found in session 25: the fact was written afresh on one line, its comments lost.
  const { ctx, file, text } = await written(
    'triples:',
    '  - from: 2025-01-01',
    '    # from ADR-12',
    '    s: app',
    '    p: uses',
    '    o: redis  # pinned',
  );
  await update(ctx, { triples: [{ s: 'app', p: 'uses', o: 'redis' }] });
  expect(frontMatterOf(readFileSync(file, 'utf8')).replace(/\nupdated: .*\n/, '\n')).toBe(
    frontMatterOf(text).replace('  - from: 2025-01-01\n    # from', '  - # from'),
  );
});

describe('an anchor another place aliases', () => {
  it('an update that would remove it is refused with the alias named, nothing changed', async () => {
    const { ctx, dir, file, text } = await written(
      'triples:',
      '  - &main [app, uses, redis]',
      '  - [app, runs-on, linux]',
      'see-also: *main',
    );
    const head = git(dir, 'rev-parse', 'HEAD');
    await expect(update(ctx, { triples: [{ s: 'app', p: 'runs-on', o: 'linux' }] })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(/alias \*main on line 8 .*&main/),
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    // The next edit (one the alias does not stand in the way of) still works.
    await update(ctx, { tags: ['redis'] });
    expect(readFileSync(file, 'utf8')).toContain(
      '  - &main [app, uses, redis]\n  - [app, runs-on, linux]\nsee-also: *main\n',
    );
  });
});

it("an update's timeScope and planId are written, in place, the comments on their lines kept", async () => {
  // Found in session 25: an update left out what it was given for both (a create writes them),
  // while the docs say an update replaces what it gives.
  const { ctx, file, text } = await written(
    'plan: p-1  # the Q3 plan',
    'time_scope: "2026-Q3"  # until then',
  );
  await update(ctx, { timeScope: '2026-Q4', metadata: { topicId: 'redis-cache', planId: 'p-2' } });
  expect(frontMatterOf(readFileSync(file, 'utf8')).replace(/\nupdated: .*\n/, '\n')).toBe(
    frontMatterOf(text).replace('p-1', 'p-2').replace('"2026-Q3"', '"2026-Q4"'),
  );
  // Left out, they stay.
  await update(ctx, { tags: ['redis'] });
  expect(readFileSync(file, 'utf8')).toContain(
    'plan: p-2  # the Q3 plan\ntime_scope: "2026-Q4"  # until then\n',
  );
});
