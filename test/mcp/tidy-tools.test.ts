// memory_learn, memory_import, memory_consolidate and memory_refresh over real stdio with the SDK client.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, connectForSuite, ROOT, type Connected } from './helpers.js';

const fixture = (name: string) => readFileSync(path.join(ROOT, 'test/fixtures/learn', name), 'utf8');
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

describe('cairn mcp: learn, import, consolidate, refresh', () => {
  let store: string;
  let conn: Connected;
  connectForSuite((s, c) => ((store = s), (conn = c)));

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

  it('the audit log carries every count the answer reports (unchanged and dropped too)', async () => {
    // Found in session 25: the audit line said candidates and duplicates only.
    const learned = await call(conn.client, 'memory_learn', {
      transcript: fixture('claude-code.jsonl'),
      name: 'session-2.jsonl',
      agentName: 'claude-code',
      dryRun: true,
    });
    const imported = await call(conn.client, 'memory_import', {
      source: 'chatgpt',
      text: fixture('chatgpt-dump.md'),
    });
    const log = readFileSync(path.join(store, '.cairn/agent_audit.log'), 'utf8').trim().split('\n');
    const last = (tool: string) => JSON.parse(log.filter((l) => l.includes(`"${tool}"`)).pop()!).result;
    for (const [tool, r] of [
      ['memory_learn', learned],
      ['memory_import', imported],
    ] as const) {
      const c = r.json.counts;
      for (const what of ['unchanged', 'dropped', 'failed'])
        expect(last(tool)).toContain(`${c[what]} ${what}`);
      expect(last(tool)).toContain(`${c.candidate} candidates`);
      expect(last(tool)).toContain(`${c.duplicate} duplicates`);
    }
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
