// `cairn learn` on inputs a person really hands it: a long chat log, transcripts piped in one after
// another, several files of which one is damaged, a store that cannot take a write right now.
import { writeFileSync } from 'node:fs';
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
