// memory_learn, memory_import, memory_consolidate and memory_refresh over real stdio with the SDK client.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, call, connect, makeStore, ROOT, type Connected } from './helpers.js';

const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures/learn', name), 'utf8');
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

describe('cairn mcp: learn, import, consolidate, refresh', () => {
  let store: string;
  let conn: Connected;

  beforeAll(async () => {
    buildDist();
    store = await makeStore();
    conn = await connect(store);
  });
  afterAll(async () => conn?.close());

  it('learns from a transcript once, authored by the agent', async () => {
    const args = {
      transcript: fixture('claude-code.jsonl'),
      name: 'session-1.jsonl',
      agentName: 'claude-code',
    };
    const first = await call(conn.client, 'memory_learn', args);
    expect(first.isError).toBe(false);
    expect(first.json.counts.active).toBeGreaterThanOrEqual(3);
    expect(git(store, 'log', '-1', '--format=%an', 'main').trim()).toBe('claude-code (agent)');
    // The fields docs/agents.md names.
    expect(Object.keys(first.json).sort()).toEqual(
      ['counts', 'dryRun', 'messages', 'proposals', 'transcripts', 'warnings'].sort(),
    );
    expect(Object.keys(first.json.proposals[0])).toEqual(
      expect.arrayContaining(['text', 'kind', 'confidence', 'why', 'verdict', 'outcome', 'id', 'reason']),
    );
    const second = await call(conn.client, 'memory_learn', args);
    expect(second.json.proposals).toEqual([]);
    expect(second.json.messages.alreadyLearned).toBe(second.json.messages.read);
  });

  it('imports a pasted answer as candidates only, and refuses an unknown source', async () => {
    const main = git(store, 'rev-parse', 'main');
    const r = await call(conn.client, 'memory_import', {
      source: 'gemini',
      text: fixture('chatgpt-dump.md'),
    });
    expect(r.isError).toBe(false);
    expect(Object.keys(r.json).sort()).toEqual(['counts', 'dryRun', 'proposals', 'statements'].sort());
    expect(r.json.statements).toBe(r.json.proposals.length);
    expect(r.json.counts.active).toBe(0);
    expect(r.json.counts.candidate).toBeGreaterThan(3);
    expect(git(store, 'rev-parse', 'main')).toBe(main);
    const bad = await call(conn.client, 'memory_import', { source: 'claude', text: 'x' });
    expect(bad.isError).toBe(true);
  });

  it('refreshes the MEMORY.md index and proposes a tidy-up without touching main', async () => {
    const refreshed = await call(conn.client, 'memory_refresh', {});
    expect(refreshed.json).toMatchObject({ changed: true });
    expect(readFileSync(path.join(store, 'MEMORY.md'), 'utf8')).toContain(
      '[[every-migration-needs-a-down-script]]',
    );
    const main = git(store, 'rev-parse', 'main');
    const tidy = await call(conn.client, 'memory_consolidate', { dryRun: true });
    expect(tidy.isError).toBe(false);
    expect(Array.isArray(tidy.json.proposals)).toBe(true);
    expect(git(store, 'rev-parse', 'main')).toBe(main);
  });
});
