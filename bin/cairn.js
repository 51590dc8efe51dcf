#!/usr/bin/env node
// The `cairn` command: a thin launcher over the compiled CLI (run `npm run build` first in a clone).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The bundle starts faster; dist/main.js (plain tsc output) works too.
const bundle = new URL('../dist/bundle/main.mjs', import.meta.url);
const entry = existsSync(fileURLToPath(bundle)) ? bundle : new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
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
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
