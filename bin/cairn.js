#!/usr/bin/env node
// The `cairn` command: a thin launcher over the compiled CLI (run `npm run build` first in a clone).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// The bundle starts faster (with a code cache, load-bundle.cjs); dist/main.js (plain tsc output) works too.
const bundle = fileURLToPath(new URL('../dist/bundle/main.cjs', import.meta.url));
const unbundled = new URL('../dist/main.js', import.meta.url);
if (!existsSync(bundle) && !existsSync(fileURLToPath(unbundled))) {
  process.stderr.write(
    'cairn: not built yet. Run `npm install && npm run build` in the Cairn folder first.\n',
  );
  process.exit(70);
}
// `cairn list | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
// `cairn search` runs without the optimizing compiler (cli/commands-search.ts says why). Turned off
// before any code loads, so the code cache it reads was made under the same V8 flags.
const mode = process.argv[2] === 'search' ? 'search' : 'default';
if (mode === 'search') setFlagsFromString('--no-turbofan');
const { main } = existsSync(bundle)
  ? (await import('./load-bundle.cjs')).default.requireBundle(bundle, mode)
  : await import(unbundled.href);
process.exitCode = await main(process.argv.slice(2));
