// What README.md and docs/cli.md say about every command, checked against the commands there are:
// "Docs match behaviour", so a new command or a changed output convention fails here first.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../server/src/cli/registry.js';
import { REPO_ROOT, cairn, removeDir, tempDir } from '../helpers/store.js';

const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const cliDoc = readFileSync(path.join(REPO_ROOT, 'docs/cli.md'), 'utf8');

/** docs/cli.md: `--json` prints one JSON document, but for these three (and serve runs on after it). */
const NO_JSON_DOCUMENT = ['mcp', 'lsp', 'merge-driver', 'serve'];

let parent: string;
let store: string;

beforeAll(async () => {
  parent = tempDir();
  store = path.join(parent, 'mem');
  expect((await cairn(['init', store])).code).toBe(0);
});
afterAll(() => removeDir(parent));

describe('the commands the docs list', () => {
  it("README's list and docs/cli.md's table name every command", () => {
    const listed = /## Commands\n\n([\s\S]*?)\. Every command/.exec(readme)?.[1] ?? '';
    const names = listed.match(/`[a-z-]+`/g)?.map((n) => n.slice(1, -1));
    expect(names?.sort()).toEqual(COMMANDS.map((c) => c.name).sort());
    // A row's first cell names its command or two (`accept ID ...` / `reject ID --why TEXT`).
    const rows = cliDoc.split('\n').filter((l) => l.startsWith('| `'));
    const documented = rows.flatMap((row) =>
      [...row.split(' | ')[0].matchAll(/`([a-z-]+)(?=[ `])/g)].map((m) => m[1]),
    );
    for (const { name } of COMMANDS) expect(documented, name).toContain(name);
  });

  // Each is run as a script would first run it, without its arguments: the answer is still one
  // JSON document (a usage error is one too), and the exit code is the one the error names.
  it('prints exactly one JSON document on stdout for --json, success or error', async () => {
    const names = COMMANDS.map((c) => c.name).filter((n) => !NO_JSON_DOCUMENT.includes(n));
    const env = { CAIRN_RESIDENT: '0', CAIRN_MODELS_DIR: path.join(parent, 'models') };
    const runs = [];
    for (let i = 0; i < names.length; i += 4)
      runs.push(
        ...(await Promise.all(
          names
            .slice(i, i + 4)
            .map(async (name) => ({ name, ...(await cairn([name, '--json'], { cwd: store, env })) })),
        )),
      );
    for (const r of runs) {
      let answer: { errorCode?: string } | undefined;
      expect(() => (answer = JSON.parse(r.stdout)), `${r.name}: ${r.stdout}`).not.toThrow();
      if (answer?.errorCode === 'USAGE') expect(r.code, r.name).toBe(2);
    }
  }, 120_000);
});
