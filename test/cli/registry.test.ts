// Commands load on demand (cli/registry.ts): each entry must load the command it is named after.
import { describe, expect, it } from 'vitest';
import { COMMANDS, findCommand, loadCommands } from '../../server/src/cli/registry.js';

describe('the command registry', () => {
  it('loads, for every name it lists, the command of that name, once each', async () => {
    const loaded = await loadCommands();
    expect(loaded.map((c) => c.name)).toEqual(COMMANDS.map((c) => c.name));
    expect(new Set(loaded).size).toBe(loaded.length);
    expect((await findCommand('search'))?.name).toBe('search');
    expect(await findCommand('no-such-command')).toBeUndefined();
    expect(await findCommand(undefined)).toBeUndefined();
  });
});

// `cairn help COMMAND` prints the usage: an option the command takes and its usage leaves out is one
// nobody finds (store's --supersedes and --session, model's --remote-host were).
describe('cairn help', () => {
  it("names, in each command's usage, every option the command takes", async () => {
    for (const c of await loadCommands())
      for (const option of Object.keys(c.options ?? {})) expect(c.usage, c.name).toContain(`--${option}`);
  });
});
