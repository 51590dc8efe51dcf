// A memory file whose lines end in a lone \r (old Mac line endings), committed by hand: list, check,
// search and get read its front matter and lines as they read the same file with \n.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const stores = cliStores();

const FILE = [
  '---',
  'id: old-mac-note',
  'title: Old Mac note',
  'kind: fact',
  'created: 2024-01-01T00:00:00Z',
  '---',
  '',
  'The deploy key rotates every quarter, zebrafish.',
  '',
  '## Decisions',
  '',
  '- rotate by cron',
  '',
].join('\r');

describe('a memory with old Mac line endings', () => {
  it('is listed, checked, found and shown by its front matter and lines', async () => {
    const s = await stores.newStore();
    writeFileSync(path.join(s.dir, 'memories/old-mac-note.md'), FILE);
    git(s.dir, 'add', '-A');
    git(s.dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'an old Mac file');

    const list = await s.run('list');
    expect(list.stdout).toMatch(/old-mac-note\s+Old Mac note/);
    const check = await s.run('check');
    expect(check.stdout + check.stderr).toContain('no findings');
    expect(check.code).toBe(0);

    const search = await s.run('search', 'zebrafish', '--json');
    const answer = JSON.parse(search.stdout);
    expect(answer.entries[0]).toMatchObject({
      topicId: 'old-mac-note',
      topic: 'Old Mac note',
      lines: [8, 12],
    });
    expect(answer.results[0].snippet).not.toContain('id: old-mac-note');

    const get = await s.run('get', 'old-mac-note');
    expect(get.stdout).toContain('# Old Mac note');
    expect(get.stdout).not.toContain('\\x0d');
    expect(get.stdout).toContain('kind: fact\ncreated:');
    const lines = await s.run('get', 'memories/old-mac-note.md', '--from', '8', '--lines', '1');
    expect(lines.stdout.trim()).toBe('The deploy key rotates every quarter, zebrafish.');
  }, 60_000);
});
