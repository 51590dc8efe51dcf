#!/usr/bin/env node
// The `cairn` command: a thin launcher over the compiled CLI (run `npm run build` first in a clone).
// CommonJS (bin/package.json), not an ES module: Node starts an ES module entry later (its loader
// is set up first), which cost about 5 ms of every command and a tenth of a resident-answered search.
'use strict';
const { existsSync } = require('node:fs');
const path = require('node:path');

/** The V8 flags `cairn search` runs with (cli/commands-search.ts's SEARCH_V8_FLAGS; keep them equal). */
const SEARCH_FLAGS = ['--interrupt-budget=1048576'];
/** The V8 flags the language server runs with (lsp/memory.ts sets the same ones; keep them equal). */
const LSP_FLAGS = ['--semi-space-growth-factor=1', '--expose-gc'];

// The bundle starts faster (with a code cache, load-bundle.cjs); dist/main.js (plain tsc output) works too.
const bundle = path.join(__dirname, '..', 'dist', 'bundle', 'main.cjs');
const unbundled = path.join(__dirname, '..', 'dist', 'main.js');

async function run() {
  const built = existsSync(bundle);
  if (!built && !existsSync(unbundled)) {
    process.stderr.write(
      'cairn: not built yet. Run `npm install && npm run build` in the Cairn folder first.\n',
    );
    process.exit(70);
  }
  const command = process.argv[2];
  // `cairn list | head` closes the pipe early: that is the reader's choice, not an error. Not for
  // the servers: an editor that quits without waiting for the answer to `shutdown` (Neovim on :qa),
  // or an agent host that quits, closes their stdout too, and a store under way must still be
  // committed; they exit once their stdin ends and that work is done (bounded, lsp/server.ts,
  // mcp/server.ts).
  const server = command === 'lsp' || command === 'mcp';
  process.stdout.on('error', (err) => {
    if (err.code !== 'EPIPE') throw err;
    if (!server) process.exit(0);
  });
  // A search is answered by the store's resident search when one runs (bin/resident-client.js).
  const resident = command === 'search' && built ? await askResident() : null;
  // V8 rejects a code cache made under other flags, and writes it again at exit. So a command that
  // changes V8 flags changes them before any code loads, and keeps its own caches (`mode`):
  // `cairn search` optimizes only code that runs long (cli/commands-search.ts says why); the
  // language server keeps its young generation small and calls gc() (lsp/memory.ts). Set later,
  // the server's flags made every run reject its cache and rewrite it, and the other commands' too.
  const mode = command === 'search' ? 'search' : command === 'lsp' ? 'lsp' : 'default';
  const { setFlagsFromString } = require('node:v8');
  if (mode === 'search') for (const flag of SEARCH_FLAGS) setFlagsFromString(flag);
  if (mode === 'lsp') for (const flag of LSP_FLAGS) setFlagsFromString(flag);
  // V8's helper threads yield to the thread that answers the editor (bin/lower-helpers.cjs says why).
  if (mode === 'lsp') require('./lower-helpers.cjs').lowerHelperThreads();
  const { main } = built
    ? require('./load-bundle.cjs').requireBundle(bundle, mode)
    : await import(require('node:url').pathToFileURL(unbundled).href);
  process.exitCode = await main(process.argv.slice(2));
  // `cairn mcp` returns once its input ended and the tool calls under way finished or had their
  // few seconds: one still stuck must not keep a server nobody talks to alive.
  if (command === 'mcp') process.exit();
  // The next search in this store is answered by a resident, started now that this one has answered.
  if (resident && process.exitCode === 0) resident();
}

/**
 * Asks the store's resident search; exits with its answer when it gave one. Otherwise returns how to
 * start one after this search (null when that would not help).
 */
async function askResident() {
  const client = require('./resident-client.js');
  const argv = process.argv.slice(2);
  const where = client.residentFor(argv, process.env, process.cwd(), path.dirname(bundle));
  const answered = where
    ? await client.ask(where, argv, process.cwd())
    : { code: null, why: 'no store, or no private folder for its socket' };
  if (answered.code !== null) process.exit(answered.code);
  if (answered.replaced)
    process.stderr.write(
      `cairn: the resident search did not answer (${answered.why}): this search runs on its own, ` +
        'and a new resident is started for the next ones\n',
    );
  if (process.env.CAIRN_RESIDENT === 'require') {
    process.stderr.write(`cairn: no resident search answered (CAIRN_RESIDENT=require): ${answered.why}\n`);
    process.exit(75);
  }
  return answered.startable ? () => client.start(where, __filename) : null;
}

run();
