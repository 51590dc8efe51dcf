// A teammate pushes candidate branches whose names (or Memory-Id trailers) are shell code: git allows
// `$(...)` and `${IFS}` in a branch name. `cairn review` suggests `cairn accept NAME` to copy into a
// shell; run exactly as printed, that command accepts that proposal and runs nothing else.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, removeDir, tempDir } from '../helpers/store.js';
import { agentPayload, makeTeam, statuses, type Team } from './team.js';

let team: Team | null = null;
let bin: string | null = null;
afterEach(async () => {
  await team?.cleanup();
  team = null;
  if (bin) removeDir(bin);
  bin = null;
});

describe('candidate names that are shell code', () => {
  it('are quoted in the commands review suggests, which then accept just that proposal', async () => {
    team = await makeTeam({ names: ['Mallory', 'Ben'], transport: 'file' });
    const [mallory, ben] = team.clones;
    const pwned = path.join(tempDir('cairn-pwned-'), 'PWNED');
    const hostile: [string, string, string][] = [
      // The branch name is the id (no trailer).
      [`candidate/evil$(touch\${IFS}${pwned})`, 'evil-one', 'store(add): evil-one'],
      // The Memory-Id trailer names it.
      ['candidate/evil-two', 'evil-two', `store(add): evil-two\n\nMemory-Id: two\`touch \${IFS}${pwned}\``],
      // Read as options unless it comes after "--" (session 20: `cairn accept -rf` failed).
      ['candidate/-rf', 'dash-one', 'store(add): dash-one'],
    ];
    for (const [branch, id, message] of hostile) {
      await mallory.git('checkout', '-q', '-b', branch, 'main');
      writeFileSync(
        path.join(mallory.dir, 'memories', `${id}.md`),
        `---\nid: ${id}\ntitle: ${id}\nkind: note\n---\n\nDeploys go out on Fridays (${id}).\n`,
      );
      await mallory.git('add', '-A');
      await mallory.git('commit', '-q', '-m', message);
      await mallory.git('push', '-q', 'origin', branch);
      await mallory.git('checkout', '-q', 'main');
    }
    await ben.sync();
    const review = await ben.run('review', '--no-diff');
    expect(review.code).toBe(0);
    const commands = [...review.stdout.matchAll(/accept: (cairn accept .*?) {4}reject:/g)].map((m) => m[1]);
    expect(commands).toHaveLength(3);

    // A person copies each suggestion into a shell.
    bin = tempDir('cairn-bin-');
    writeFileSync(path.join(bin, 'cairn'), `#!/bin/sh\nexec "${process.execPath}" "${CAIRN_BIN}" "$@"\n`);
    chmodSync(path.join(bin, 'cairn'), 0o755);
    const runs = commands.map((command) =>
      spawnSync('sh', ['-c', command], {
        cwd: ben.dir,
        env: {
          ...process.env,
          PATH: `${bin}:${process.env.PATH}`,
          CAIRN_AUTHOR_NAME: 'Ben',
          CAIRN_AUTHOR_EMAIL: 'ben@team.test',
        },
        encoding: 'utf8',
      }),
    );
    expect(existsSync(pwned), 'the shell ran code from a branch name').toBe(false);
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const after = await statuses(ben);
    expect([...after.values()].flat().filter((s) => s === 'candidate')).toEqual([]);
    expect(await ben.git('log', '--format=%s', '-2', 'main')).toMatch(/accept/);
  });

  // Found in session 19 (helper's attacker pass): escapeForTerminal escaped C0/C1 controls only, so a
  // right-to-left override in a branch name reached the terminal and reordered what a reviewer read.
  it('show bidi controls in a branch name escaped on the terminal', async () => {
    team = await makeTeam({ names: ['Mallory', 'Ben'], transport: 'file' });
    const [mallory, ben] = team.clones;
    const branch = 'candidate/fix-\u202Edm.tpircs\u2066x\u2069';
    await mallory.git('checkout', '-q', '-b', branch, 'main');
    writeFileSync(
      path.join(mallory.dir, 'memories', 'fix-notes.md'),
      '---\nid: fix-notes\ntitle: fix notes\nkind: note\n---\n\nDeploys go out on Fridays.\n',
    );
    await mallory.git('add', '-A');
    await mallory.git('commit', '-q', '-m', 'store(add): fix-notes');
    await mallory.git('push', '-q', 'origin', branch);
    await ben.sync();
    const review = await ben.run('review', '--no-diff');
    expect(review.code).toBe(0);
    expect(review.stdout).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(review.stdout).toContain('\\u202e');
  });
});

describe('a branch pushed by hand under a proposal id as its folder', () => {
  // Failed before: git cannot hold candidate/<id> beside candidate/<id>/x, so sync's one atomic push
  // was refused at every sync (PUSH_REJECTED): main, rejections and every other proposal stayed
  // here, even as the same push deleted the other branch.
  it('does not hold back the sync: the proposal goes under a name of its own', async () => {
    team = await makeTeam({ names: ['Mallory', 'Ana', 'Ben'], transport: 'file' });
    const [mallory, ana, ben] = team.clones;
    await mallory.git('push', '-q', 'origin', 'main:refs/heads/candidate/queue-retries/x');
    const id = (await ana.store({ ...agentPayload('Queue retries'), agentName: 'scout' })).metadata.topic_id;
    expect(id).toBe('queue-retries');
    const other = (await ana.store(agentPayload('Cache sizes', { confidence: 0.95 }))).metadata.topic_id;
    const s = await ana.sync();
    expect(s.pushed).toEqual(['refs/heads/main', 'refs/heads/candidate/queue-retries--scout']);
    expect(s.deletedRemote).toEqual(['candidate/queue-retries/x']);
    const b = await ben.sync();
    expect(b.newCandidates).toEqual([id]);
    expect(await ben.git('show', `main:memories/${other}.md`)).toContain('Cache sizes');
    expect((await ben.json('accept', id)).exit).toBe(0);
  });
});
