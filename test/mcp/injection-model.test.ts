// Agents never read a passage only the learned detector flags (issue 12): memory_get and
// memory_retrieve withhold it at its line until a person allows injection/model on that memory.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowFindings } from '../../server/src/ops/allow.js';
import { openStore } from '../../server/src/store/store.js';
import { EMAIL, HIDDEN } from '../scan/injection-fixtures.js';
import { buildDist, call, connect, makeStore, type Connected } from './helpers.js';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
};
const FILE =
  '---\nid: planning-email\ntitle: Quarterly planning email\nkind: note\ncreated: 2026-11-20T10:00:00Z\n' +
  `updated: 2026-11-20T10:00:00Z\nsource: {origin: human}\n---\n\n${EMAIL}\n`;
const LINE = FILE.split('\n').indexOf(HIDDEN) + 1;
const LEAK = /IBAN DE89|transfer \$3,000/;

describe('cairn mcp: a passage the model flags', () => {
  let store: string;
  let conn: Connected;

  beforeAll(async () => {
    buildDist();
    store = await makeStore();
    writeFileSync(path.join(store, 'memories', 'planning-email.md'), FILE);
    execFileSync('git', ['add', '-A'], { cwd: store, env: ENV });
    execFileSync('git', ['commit', '-qm', 'planning email'], { cwd: store, env: ENV });
    conn = await connect(store);
  });
  afterAll(async () => conn?.close());

  it('is withheld at its line from memory_get and memory_retrieve, the rest stays readable', async () => {
    const got = await call(conn.client, 'memory_get', { path: 'memories/planning-email.md' });
    expect(got.texts.join('\n')).not.toMatch(LEAK);
    expect(got.json.withheld).toBe(1);
    // The paragraph that holds the flagged line is withheld whole (core/withhold.ts).
    const [passage] = got.json.withheldPassages;
    expect(passage.rules).toEqual(['injection/model']);
    expect(passage.line).toBeLessThanOrEqual(LINE);
    expect(passage.endLine).toBe(LINE);
    expect(got.json.text).toContain(`[withheld by Cairn: injection/model on lines ${passage.line}-${LINE};`);
    expect(got.json.text).toContain('Maria drafts the migration runbook');
    const r = await call(conn.client, 'memory_retrieve', { query: 'quarterly planning budget hiring' });
    expect(r.texts.join('\n')).not.toMatch(LEAK);
  });

  it('is handed over once a person allows injection/model on that memory', async () => {
    const ctx = {
      store: await openStore({ store }),
      now: () => new Date(),
      author: { name: 'Ada', email: 'ada@example.com' },
    };
    await allowFindings(ctx, 'planning-email', ['injection/model']);
    const got = await call(conn.client, 'memory_get', { path: 'memories/planning-email.md' });
    expect(got.json.withheld).toBe(0);
    expect(got.json.text).toContain(HIDDEN);
  });
});
