// The thread that prepares a large index build's files (index-prep-thread.ts starts it): parses,
// chunks and hashes each, and makes its record, while the thread that started it adds the files
// already prepared to the keyword index. Plain data both ways.
import { parentPort } from 'node:worker_threads';
import { parseSource } from './core/search/source.js';
import { prepareFile } from './search/prepare.js';
import type { PrepareReply, PrepareRequest } from './index-prep-thread.js';

parentPort?.on('message', ({ id, files, chunking }: PrepareRequest) => {
  let reply: PrepareReply;
  try {
    const prepared = files.map((raw) => {
      const { text, meta } = parseSource(raw);
      return prepareFile(raw.path, text, meta, chunking);
    });
    // The records go as the UTF-8 bytes of one buffer, moved rather than copied: the other thread
    // writes them to the index as they are, and holds them until then outside its heap (as strings
    // they were copied by each of its collections, and that cost more than the thread saved).
    const json = prepared.map((p) => JSON.stringify(p.record));
    const lengths = json.map((j) => Buffer.byteLength(j));
    const bytes = Buffer.allocUnsafeSlow(lengths.reduce((a, b) => a + b, 0));
    let at = 0;
    const records: [number, number][] = json.map((_, i) => {
      bytes.write(json[i], at);
      at += lengths[i];
      return [at - lengths[i], at];
    });
    const sent = prepared.map(({ meta, textLength, chunks }) => ({ meta, textLength, chunks }));
    reply = { id, prepared: sent, records, bytes: bytes.buffer };
    parentPort?.postMessage(reply, [bytes.buffer]);
    return;
  } catch (e) {
    reply = { id, error: (e as Error).message };
  }
  parentPort?.postMessage(reply);
});
