// `cairn learn` on inputs a person really hands it: a long chat log, transcripts piped in one after
// another, several files of which one is damaged, a store that cannot take a write right now.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cairn, cliStores, git, type CliStore } from '../helpers/store.js';

const stores = cliStores();
const learnFrom = (s: CliStore, input: string, ...args: string[]) =>
  cairn(['learn', '-', '--json', ...args, '--store', s.dir], { input });

describe('cairn learn on large and repeated input', () => {
  it('reads a chat log of 400,000 messages without an internal error', async () => {
    const s = await stores.newStore();
    const chatter = Array.from(
      { length: 200_000 },
      (_, i) => `User: just chatting, message ${i}, lol.\n\nAssistant: ok ${i}.\n`,
    ).join('\n');
    const log = `${chatter}\nUser: Remember that the ledger deploys on Tuesdays.\n`;
    const r = await learnFrom(s, log, '--format', 'markdown');
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.messages.read).toBe(400_001);
    expect(out.counts.active).toBe(1);
  });
});

describe('cairn learn remembers which messages it read, by what they say', () => {
  it('learns a second transcript piped in after another, and skips only what it read before', async () => {
    const s = await stores.newStore();
    const first =
      'User: Remember that the staging database is reset on Sundays.\n\nAssistant: Noted, Sundays.\n';
    const second = 'User: Remember that releases are cut on Tuesdays.\n\nAssistant: Noted, Tuesdays.\n';
    expect(JSON.parse((await learnFrom(s, first)).stdout).counts.active).toBe(1);
    // Another chat on stdin: its messages sit at the same lines as the first one's.
    const r = JSON.parse((await learnFrom(s, second)).stdout);
    expect(r.messages.alreadyLearned).toBe(0);
    expect(r.counts.active).toBe(1);
    expect(git(s.dir, 'ls-tree', '--name-only', 'main', 'memories/')).toMatch(/releases-are-cut-on-tuesdays/);
    // The same chat again, and the first one with a message added, are read only where new.
    expect(JSON.parse((await learnFrom(s, second)).stdout).messages.alreadyLearned).toBe(2);
    const grown = `${first}\nUser: Remember that the ledger deploys from the release branch.\n`;
    const more = JSON.parse((await learnFrom(s, grown)).stdout);
    expect(more.messages).toMatchObject({ read: 3, alreadyLearned: 2 });
    expect(more.counts.active).toBe(1);
  });

  it('learns two files of the same name in different folders', async () => {
    const s = await stores.newStore();
    for (const [folder, text] of [
      ['a', 'User: Remember that the staging database is reset on Sundays.\n'],
      ['b', 'User: Remember that releases are cut on Tuesdays.\n'],
    ]) {
      const dir = path.join(s.parent, folder);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'chat.md'), text);
      const r = await cairn(['learn', 'chat.md', '--json', '--store', s.dir], { cwd: dir });
      expect(JSON.parse(r.stdout).counts.active, folder).toBe(1);
    }
  });
});

describe('cairn learn when the store cannot take a write', () => {
  it('leaves a message unread when its statement could not be stored, so the next run learns it', async () => {
    const s = await stores.newStore();
    // A person's `git merge` stopped on a conflict: every write waits until it ends.
    git(s.dir, 'checkout', '-q', '-b', 'side');
    writeFileSync(path.join(s.dir, 'MEMORY.md'), 'side\n');
    git(s.dir, 'commit', '-qam', 'side');
    git(s.dir, 'checkout', '-q', 'main');
    writeFileSync(path.join(s.dir, 'MEMORY.md'), 'main\n');
    git(s.dir, 'commit', '-qam', 'main');
    expect(() => git(s.dir, 'merge', '-q', 'side')).toThrow();
    const chat = 'User: Remember that releases are cut on Tuesdays.\n';
    const busy = await learnFrom(s, chat);
    expect(busy.code).toBe(1);
    expect(JSON.parse(busy.stdout).proposals[0].reason).toMatch(/OPERATION_IN_PROGRESS/);

    git(s.dir, 'merge', '--abort');
    const r = JSON.parse((await learnFrom(s, chat)).stdout);
    expect(r.messages.alreadyLearned).toBe(0);
    expect(r.counts.active).toBe(1);
  });

  it('names the file whose transcript it cannot read', async () => {
    const s = await stores.newStore();
    const good = path.join(s.parent, 'good.jsonl');
    const cut = path.join(s.parent, 'cut.jsonl');
    const line = (uuid: string, text: string) =>
      JSON.stringify({ type: 'user', uuid, message: { role: 'user', content: text } });
    writeFileSync(
      good,
      `${line('u1', 'Remember that releases are cut on Tuesdays.')}\n${line('u2', 'Thanks.')}\n`,
    );
    writeFileSync(cut, `${line('u1', 'Remember that the ledger deploys on Sundays.')}\n{"type":"user","uu`);
    const head = git(s.dir, 'rev-parse', 'main');
    const r = await cairn(['learn', good, cut, '--store', s.dir]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/cut\.jsonl: line 2: not JSON/);
    expect(git(s.dir, 'rev-parse', 'main')).toBe(head);
  });

  it('reads a Claude Code session of one line as one', async () => {
    const s = await stores.newStore();
    const session = JSON.stringify({
      type: 'user',
      uuid: 'u1',
      message: { role: 'user', content: 'Remember that releases are cut on Tuesdays.' },
    });
    const r = await learnFrom(s, `${session}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).counts.active).toBe(1);
  });
});
