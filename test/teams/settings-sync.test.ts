// A teammate's change to cairn.yaml arrives with `cairn sync` like any other commit on main. The
// settings decide what reaches main without a person, so sync names each one that arrives, and says
// when it weakens governance, in a dry run too (the plan is where a person can still stop).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTeam, type Clone, type Team } from './team.js';

let team: Team | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
});

async function commitSetting(c: Clone, from: string, to: string, message: string): Promise<void> {
  const file = path.join(c.dir, 'cairn.yaml');
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
  await c.git('commit', '--quiet', '-am', message);
}

describe('cairn sync names the settings that arrive', () => {
  it('a fast-forward that lowers autoFloor: named as weakening, in the plan and in the sync', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    await commitSetting(ana, 'autoFloor: 0.80', 'autoFloor: 0.30', 'Let more agent writes through');
    await ana.sync();

    const plan = await ben.json('sync', '--dry-run');
    expect(plan.main).toBe('fast-forward');
    expect(plan.settingsChanged).toEqual([
      expect.objectContaining({
        key: 'governance.autoFloor',
        from: '0.8',
        to: '0.3',
        weakens: expect.any(String),
      }),
    ]);
    expect((await ben.run('sync', '--dry-run')).stdout).toMatch(
      /! weakens governance: cairn\.yaml governance\.autoFloor .*\(would arrive from origin\)/,
    );
    const text = await ben.run('sync');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /! weakens governance: cairn\.yaml governance\.autoFloor 0\.8 -> 0\.3 .*\(arrived from origin\)/,
    );
    // Applied: a second sync has nothing left to name.
    expect((await ben.sync()).settingsChanged).toEqual([]);
  });

  it('a merge names only what the remote changed, not this clone’s own change', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    await commitSetting(ana, 'maxResults: 6', 'maxResults: 8', 'More results');
    await ana.sync();
    await commitSetting(ben, 'halfLifeDays: 180', 'halfLifeDays: 90', 'Faster decay');
    const r = await ben.sync();
    expect(r.main).toBe('merge');
    expect(r.settingsChanged).toEqual([{ key: 'search.maxResults', from: '6', to: '8' }]);
    const shown = await ben.run('sync', '--dry-run');
    expect(shown.stdout).not.toContain('cairn.yaml');
  });

  it('nothing arriving in cairn.yaml names nothing', async () => {
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'file' });
    const [ana, ben] = team.clones;
    writeFileSync(path.join(ana.dir, 'MEMORY.md'), '# Memory\n\n- a note\n');
    await ana.git('commit', '--quiet', '-am', 'A note');
    await ana.sync();
    const r = await ben.sync();
    expect(r.main).toBe('fast-forward');
    expect(r.settingsChanged).toEqual([]);
  });
});

describe('a running cairn mcp and settings that arrive by sync', () => {
  it('governs the agent’s next write by a commitMode a teammate pushed, once sync brings it', async () => {
    const { connect, call, buildDist } = await import('../mcp/helpers.js');
    buildDist();
    team = await makeTeam({ names: ['Ana', 'Ben'], transport: 'http' });
    const [ana, ben] = team.clones;
    const agent = await connect(ben.dir);
    try {
      const write = (topic: string) =>
        call(agent.client, 'memory_store', {
          topic,
          context: `${topic}: agreed in the planning meeting, with the reasons written in the ticket.`,
          confidence: 0.95,
          origin: 'conversation',
        });
      expect((await write('Use Redis for sessions')).json.metadata.status).toBe('active');
      await commitSetting(ana, 'commitMode: selective', 'commitMode: manual', 'Review every agent write');
      await ana.sync();
      expect((await ben.sync()).main).toMatch(/fast-forward|merge/);
      const after = await write('Use Postgres for the audit log');
      expect(after.json.metadata.status).toBe('candidate');
      expect(await ben.git('ls-tree', '--name-only', 'main', 'memories/')).not.toContain(
        'use-postgres-for-the-audit-log',
      );
    } finally {
      await agent.close();
    }
  });
});
