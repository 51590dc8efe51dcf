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
