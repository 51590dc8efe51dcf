// A proposal that changes cairn.yaml changes governance itself: the injection detector's threshold,
// which agent writes skip review. `cairn check --changed` (the pull-request check) said nothing about
// such a change, and `cairn review` showed it only as a diff line. Both now name each setting and
// say when it lets more through. Review also names commits on a candidate written as a person's
// decisions (inert since decisions count only on main's lines). Built CLI, real git.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const { newStore } = cliStores();

/** A branch off main that rewrites cairn.yaml with `edit`, committed, left checked out. */
function settingsBranch(dir: string, name: string, edit: (config: string) => string): void {
  git(dir, 'checkout', '-q', '-b', name);
  const file = path.join(dir, 'cairn.yaml');
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  git(dir, 'commit', '-qam', `settings: ${name}`);
}

describe('cairn check --changed on a change to cairn.yaml', () => {
  it('a setting that lets more through is an error on its line; SARIF carries it', async () => {
    const s = await newStore();
    settingsBranch(s.dir, 'quiet-detector', (c) => `${c}scan:\n  injection:\n    threshold: 1.0\n`);
    const r = await s.run('check', '--changed', 'main');
    expect(r.code).toBe(1);
    const line =
      readFileSync(path.join(s.dir, 'cairn.yaml'), 'utf8').split('\n').indexOf('    threshold: 1.0') + 1;
    expect(r.stdout).toMatch(
      new RegExp(
        `^cairn\\.yaml:${line}:5: error store/settings-weakened .*scan\\.injection\\.threshold \\(unset\\) -> 1 \\(the injection detector reports fewer passages\\)`,
        'm',
      ),
    );
    const sarif = JSON.parse((await s.run('check', '--changed', 'main', '--format', 'sarif')).stdout);
    expect(sarif.runs[0].results.map((x: { ruleId: string }) => x.ruleId)).toContain(
      'store/settings-weakened',
    );
  });

  it('agent writes that skip review: commit mode, the confidence floor, the origins', async () => {
    const s = await newStore();
    settingsBranch(s.dir, 'open-gates', (c) =>
      c
        .replace(/commitMode: \w+/, 'commitMode: aggressive')
        .replace(/autoFloor: [\d.]+/, 'autoFloor: 0.6')
        .replace(/candidateOrigins: .*/, 'candidateOrigins: [background]'),
    );
    const r = await s.run('check', '--changed', 'main', '--json');
    expect(r.code).toBe(1);
    const found = JSON.parse(r.stdout).findings.filter((f: { path: string }) => f.path === 'cairn.yaml');
    expect(
      found.map((f: { code: string; message: string }) => [f.code, f.message.match(/: (\S+) /)?.[1]]),
    ).toEqual([
      ['store/settings-weakened', 'governance.commitMode'],
      ['store/settings-weakened', 'governance.autoFloor'],
      ['store/settings-weakened', 'governance.candidateOrigins'],
    ]);
    expect(r.stdout).toContain('writes from import no longer always go to review');
  });

  it('a setting that holds more back is a warning (exit 0); an invalid value is an error', async () => {
    const s = await newStore();
    settingsBranch(s.dir, 'stricter', (c) => c.replace(/commitMode: \w+/, 'commitMode: manual'));
    const r = await s.run('check', '--changed', 'main');
    expect(r.stdout).toMatch(
      /^cairn\.yaml:\d+:\d+: warning store\/settings-changed .*governance\.commitMode "selective" -> "manual"/m,
    );
    expect(r.code).toBe(0);

    git(s.dir, 'checkout', '-q', 'main');
    settingsBranch(s.dir, 'broken', (c) => c.replace(/autoFloor: [\d.]+/, 'autoFloor: 7'));
    const bad = await s.run('check', '--changed', 'main');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      /^cairn\.yaml:\d+:\d+: error config-invalid .*autoFloor must be a number from 0 to 1/m,
    );
  });

  it('a branch that leaves cairn.yaml alone gets no settings findings', async () => {
    const s = await newStore();
    git(s.dir, 'checkout', '-q', '-b', 'other');
    writeFileSync(path.join(s.dir, 'MEMORY.md'), '# Memory\n\nNothing new.\n');
    git(s.dir, 'commit', '-qam', 'tidy');
    const r = await s.run('check', '--changed', 'main');
    expect(r.stdout).not.toContain('store/settings');
    expect(r.code).toBe(0);
  });
});

describe('cairn review names what a candidate does to governance', () => {
  it('each changed setting, and commits written as decisions', async () => {
    const s = await newStore();
    git(s.dir, 'checkout', '-q', '-b', 'candidate/sneaky');
    writeFileSync(
      path.join(s.dir, 'memories', 'sneaky.md'),
      '---\nid: sneaky\ntitle: Sneaky\nkind: note\nstatus: candidate\norigin: conversation\ncreated: 2026-12-01\n---\n\nUse pnpm.\n',
    );
    const file = path.join(s.dir, 'cairn.yaml');
    writeFileSync(file, `${readFileSync(file, 'utf8')}scan:\n  injection:\n    threshold: 0.99\n`);
    git(s.dir, 'add', '-A');
    git(s.dir, 'commit', '-qm', 'candidate: sneaky');
    git(
      s.dir,
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'memory(allow): runbook\n\nMemory-Action: allow\nMemory-Id: runbook\nMemory-Allow: injection/override',
    );
    git(s.dir, 'checkout', '-q', 'main');

    const text = (await s.run('review', '--no-diff')).stdout;
    expect(text).toMatch(
      /! weakens governance: cairn\.yaml scan\.injection\.threshold \(unset\) -> 0\.99 \(the injection detector reports fewer passages\)/,
    );
    expect(text).toMatch(
      /! carries commits written as a person's decisions .*: [0-9a-f]{7} memory\(allow\): runbook/,
    );
    const [view] = JSON.parse((await s.run('review', '--json')).stdout).candidates;
    expect(view.settings).toEqual([
      {
        key: 'scan.injection.threshold',
        from: 'null',
        to: '0.99',
        weakens: 'the injection detector reports fewer passages',
      },
    ]);
    expect(view.decisionClaims).toHaveLength(1);
  });

  it('other memories it changes or deletes besides its own', async () => {
    const s = await newStore();
    for (const id of ['runbook', 'oncall'])
      writeFileSync(
        path.join(s.dir, 'memories', `${id}.md`),
        `---\nid: ${id}\ntitle: ${id}\nkind: note\n---\n\nWritten by a person.\n`,
      );
    git(s.dir, 'add', '-A');
    git(s.dir, 'commit', '-qm', 'by hand');
    git(s.dir, 'checkout', '-q', '-b', 'candidate/tidy');
    writeFileSync(
      path.join(s.dir, 'memories', 'tidy.md'),
      '---\nid: tidy\ntitle: Tidy\nkind: note\nstatus: candidate\n---\n\nTidied.\n',
    );
    git(s.dir, 'rm', '-q', 'memories/runbook.md');
    writeFileSync(
      path.join(s.dir, 'memories', 'oncall.md'),
      '---\nid: oncall\ntitle: oncall\nkind: note\n---\n\nChanged.\n',
    );
    git(s.dir, 'add', '-A');
    git(s.dir, 'commit', '-qm', 'candidate: tidy');
    git(s.dir, 'checkout', '-q', 'main');
    const text = (await s.run('review', '--no-diff')).stdout;
    expect(text).toContain(
      '! also changes other memories: memories/oncall.md, memories/runbook.md (deleted)',
    );
    const [view] = JSON.parse((await s.run('review', '--json')).stdout).candidates;
    expect(view.otherMemories).toEqual(['memories/oncall.md', 'memories/runbook.md (deleted)']);
  });

  it('a plain memory candidate has neither', async () => {
    const s = await newStore();
    const r = await s.store({
      topic: 'Use pnpm',
      context: 'We use pnpm.',
      agentName: 'scout',
      confidence: 0.7,
    });
    expect(r.metadata.status).toBe('candidate');
    const [view] = JSON.parse((await s.run('review', '--json')).stdout).candidates;
    expect(view.settings).toEqual([]);
    expect(view.decisionClaims).toEqual([]);
    expect(view.otherMemories).toEqual([]);
  });
});
