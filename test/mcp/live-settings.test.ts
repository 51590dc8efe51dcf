// A person changes cairn.yaml while `cairn mcp` runs: the agent's next write is governed by the new
// settings, as it would be by a new command. Before the fix the server kept the settings it read at
// start, and a `commitMode: manual` committed by the person still let the agent's writes onto main.
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDist, call, connect, makeStore, personGit, type Connected } from './helpers.js';

const write = (topic: string) => ({
  topic,
  context: `We decided to ${topic.toLowerCase()}: the staging cluster needs it, and this paragraph says what, why and where.`,
  confidence: 0.95,
  origin: 'conversation',
});

describe('cairn mcp: settings changed while it runs', () => {
  let store: string;
  let conn: Connected;
  const yaml = () => path.join(store, 'cairn.yaml');

  beforeAll(async () => {
    buildDist();
    store = await makeStore();
    conn = await connect(store);
  });
  afterAll(async () => conn?.close());

  it('routes the next write by a commitMode the person committed meanwhile', async () => {
    const first = await call(conn.client, 'memory_store', write('Use Redis for session caching'));
    expect(first.json.metadata.status).toBe('active');

    writeFileSync(yaml(), readFileSync(yaml(), 'utf8').replace(/commitMode: \w+/, 'commitMode: manual'));
    personGit(store, 'commit', '-qam', 'governance: every agent write is reviewed');
    const second = await call(conn.client, 'memory_store', write('Use Postgres for the audit log'));
    expect(second.json.metadata.status).toBe('candidate');
    expect(personGit(store, 'branch', '--list', 'candidate/*')).toContain('use-postgres-for-the-audit-log');
    expect(personGit(store, 'ls-tree', '--name-only', 'main', 'memories/')).not.toContain(
      'use-postgres-for-the-audit-log',
    );
  });

  it('keeps the last settings it read when cairn.yaml becomes a link', async () => {
    // The link's target would let every write through; it is never read.
    const target = path.join(path.dirname(store), 'elsewhere.yaml');
    writeFileSync(target, 'version: 1\ngovernance:\n  commitMode: aggressive\n');
    renameSync(yaml(), `${yaml()}.kept`);
    symlinkSync(target, yaml());
    try {
      const third = await call(conn.client, 'memory_store', write('Pin Node 20 in CI'));
      expect(third.json.metadata.status).toBe('candidate');
    } finally {
      rmSync(yaml());
      renameSync(`${yaml()}.kept`, yaml());
    }
  });
});
