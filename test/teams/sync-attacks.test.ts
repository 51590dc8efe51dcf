// A careless or hostile teammate with push access, and what `cairn sync` in another clone does
// with what they pushed. Real clones of a file:// remote, the built CLI, real git.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTeam, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('a proposal whose Memory-Id trailer names another, existing memory', () => {
  // The trailer said `cairn-store-conventions` (on main, untouched by the branch), so the branch
  // read as that memory "landed by a squash merge": hidden from review, and the next sync deleted
  // it on the remote and in the proposer's clone; its commit was then reachable from no ref.
  it('is not taken for accepted: it stays on review, and sync deletes it nowhere', async () => {
    team = await makeTeam({ names: ['Eve', 'Ben'], transport: 'file' });
    const [eve, ben] = team.clones;
    await eve.git('checkout', '-q', '-b', 'candidate/hello', 'main');
    writeFileSync(
      path.join(eve.dir, 'memories', 'hello.md'),
      '---\nid: hello\ntitle: Hello\nkind: note\n---\n\nSay hello in the README.\n',
    );
    await eve.git('add', '-A');
    await eve.git('commit', '-q', '-m', 'candidate: hello\n\nMemory-Id: cairn-store-conventions');
    await eve.git('checkout', '-q', 'main');
    const tip = (await eve.git('rev-parse', 'candidate/hello')).trim();
    // The proposer's own sync took it for accepted too, and deleted it before anyone saw it.
    const first = await eve.sync();
    expect(first.deletedLocal).toEqual([]);
    expect(first.pushed).toEqual(['refs/heads/candidate/hello']);

    const plan = await ben.json('sync', '--dry-run');
    expect(plan.deletedRemote).toEqual([]);
    const synced = await ben.sync();
    expect(synced.deletedRemote).toEqual([]);
    const review = await ben.json('review');
    expect(review.candidates.map((c: { branch: string }) => c.branch)).toEqual(['origin/candidate/hello']);

    const again = await eve.sync();
    expect(again.deletedLocal).toEqual([]);
    expect((await eve.git('rev-parse', 'candidate/hello')).trim()).toBe(tip);
    expect(await eve.git('ls-remote', 'origin', 'refs/heads/candidate/hello')).toContain(tip);
  });
});
