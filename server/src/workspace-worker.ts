// The workspace parser process (ops/workspace/parser-process.ts forks it): reads and parses the store
// files it is sent into startup-cache entries and sends them in batches, so the language server's
// own thread only restores them; then it exits, and its memory goes back to the system. Batches
// are cut by time: small enough to restore within a slice there.
import os from 'node:os';
import { lowerPriority } from './core/priority.js';
import { packEntries } from './ops/workspace/packed.js';
import { entryParser } from './ops/workspace/entry.js';
import type {
  FromWorkspaceParser,
  ParsedBatch,
  WorkspaceParserInit,
} from './ops/workspace/parser-process.js';

/** Work per batch: restoring the entries costs far less than making them (see the bench). */
const BATCH_MS = 40;
const BATCH_MAX = 512;

/**
 * Below the server when cores are short, but above the search index build's
 * (PRIORITY_BELOW_NORMAL, 10): the rules of the file being edited wait for this load, while a
 * search answers from what is indexed so far. With both busy on two cores, the build at the same
 * priority took half of the time this load needed.
 */
const PARSER_NICE = 5;

// Best effort: it may be refused.
try {
  os.setPriority(lowerPriority(os.getPriority(), PARSER_NICE));
} catch {
  // unchanged priority
}

if (!process.send) throw new Error('workspace-worker.ts runs as a child process with an IPC channel');
// The server gone (its end of the channel closed): nothing is left to parse for.
process.on('disconnect', () => process.exit(0));

const send = (m: FromWorkspaceParser) => {
  if (process.connected) process.send!(m);
};

/**
 * Work between two turns of the event loop: what was sent is written to the channel only in a turn
 * (the socket holds a few hundred kilobytes), so the server gets its batches as they are made.
 */
const TURN_MS = 4;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function parse({ root, rels }: WorkspaceParserInit): Promise<void> {
  let batch: ParsedBatch = [];
  let started = performance.now();
  let turn = started;
  const flush = () => {
    send({ type: 'batch', packed: packEntries(batch) });
    batch = [];
    started = performance.now();
  };
  const entryOf = entryParser(root);
  for (const rel of rels) {
    let entry = null;
    try {
      entry = entryOf(rel);
    } catch {
      // read in the server, which reports what is wrong with it
    }
    batch.push([rel, entry]);
    const now = performance.now();
    if (batch.length >= BATCH_MAX || now - started >= BATCH_MS) flush();
    if (now - turn < TURN_MS) continue;
    await nextTurn();
    turn = performance.now();
  }
  if (batch.length) flush();
}

process.once('message', (init: WorkspaceParserInit) => {
  void parse(init)
    .then(
      () => ({ type: 'done' }) as const,
      (e: unknown) => ({ type: 'failed', message: (e as Error)?.message ?? String(e) }) as const,
    )
    .then((last: FromWorkspaceParser) => {
      // Exits once everything sent is written: the channel no longer holds the process open.
      if (process.connected)
        process.send!(last, undefined, {}, () => process.connected && process.disconnect());
    });
});
