import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackReader } from '../../server/src/store/git/pack.js';
import { GitRepo } from '../../server/src/store/git.js';
import { AUTHOR, cleanupTemps, cliRepo, gitCli } from './git-helpers.js';

afterAll(cleanupTemps);

describe('PackReader', () => {
  it('reads every object of a gc-packed repository, deltas included, exactly as git does', async () => {
    const dir = cliRepo();
    const repo = await GitRepo.open(dir);
    let text = 'line\n'.repeat(200);
    for (let i = 0; i < 30; i++) {
      text += `edit ${i}\n`; // small edits of one growing file: git stores them as deltas
      await repo.commit({
        branch: 'main',
        changes: [
          { path: 'memories/grow.md', content: text },
          { path: `memories/m${i}.md`, content: `memory ${i}\n` },
        ],
        message: `c${i}`,
        author: AUTHOR,
      });
    }
    await repo.createTag('v1', 'main', 'a tag', AUTHOR);
    gitCli(dir, ['gc', '-q', '--aggressive', '--prune=now']);
    const packDir = path.join(dir, '.git/objects/pack');
    const idx = readdirSync(packDir).find((n) => n.endsWith('.idx'))!;
    const verify = gitCli(dir, ['verify-pack', '-v', path.join(packDir, idx)]);
    const deltas = verify
      .split('\n')
      .filter((l) => /^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l));
    expect(deltas.length).toBeGreaterThan(10);

    const reader = new PackReader(path.join(dir, '.git'));
    const all = gitCli(dir, ['cat-file', '--batch-all-objects', '--batch-check']).trim().split('\n');
    expect(all.length).toBeGreaterThan(100);
    for (const line of all) {
      const [oid, type, size] = line.split(' ');
      const obj = await reader.read(oid);
      expect(obj, oid).not.toBeNull();
      expect([obj!.type, obj!.body.length]).toEqual([type, Number(size)]);
    }
    expect(await reader.read('0'.repeat(40))).toBeNull();

    // And the repository keeps working on top of the pack with a fresh instance.
    const fresh = await GitRepo.open(dir);
    expect(await fresh.readText('main', 'memories/grow.md')).toBe(text);
    expect((await fresh.log('v1')).length).toBe(30);
  });
});
