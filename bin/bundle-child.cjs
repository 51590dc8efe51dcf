// Starts a child process's entry of the bundle (the workspace parser: its path, then the name of
// its V8 flags, as arguments) with the code cache of load-bundle.cjs, as bin/cairn.js starts the
// CLI: without it each parser process compiled its part of the bundle anew (about a third of its
// start). CommonJS and synchronous: the entry listens for its first message before the process
// reads its IPC channel (an ES module loads asynchronously, and a message that came meanwhile
// would be lost).
'use strict';
const { requireBundle } = require('./load-bundle.cjs');

const [entry, mode] = process.argv.slice(2);
if (!entry || !/^[a-z-]+$/.test(mode ?? '')) throw new Error('usage: bundle-child.cjs ENTRY.cjs MODE');
requireBundle(entry, mode);
