// A CI checkout (actions/checkout of a pull request) is detached and has no local main, only the
// remote-tracking one. `cairn check` works there; the commands that read main used to say "run
// `cairn init`", which would be the wrong thing to do in a store. They now name the fix.
import { afterEach, describe, expect, it } from 'vitest';
import { agentPayload, makeTeam, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

describe('a detached clone without a local main', () => {
  it('is told how to create main, not to run cairn init; after that it works', async () => {
    team = await makeTeam({ names: ['Ana', 'Ci'], transport: 'file' });
    const [a, ci] = team.clones;
    await a.store(agentPayload('Use pnpm', { confidence: 0.95 }));
    await a.sync();
    await ci.git('fetch', '--quiet', 'origin');
    await ci.git('checkout', '--quiet', '--detach', 'origin/main');
    await ci.git('branch', '--quiet', '-D', 'main');
    expect((await ci.json('check')).exit).toBe(0);
    const status = await ci.json('status');
    expect(status.errorCode).toBe('NOT_A_STORE');
    expect(status.error).toContain('git branch main origin/main');
    expect(status.error).not.toContain('cairn init');
    await ci.git('branch', '--quiet', 'main', 'origin/main');
    expect((await ci.json('list')).memories.map((m: { id: string }) => m.id)).toContain('use-pnpm');
  });
});
