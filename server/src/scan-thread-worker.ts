// The scanner of long documents (scan-thread.ts starts it as a worker thread): the language
// server's scanner rule for a document of a few hundred kilobytes or more runs here, so that its
// thread answers completions, hovers and other documents' edits meanwhile. A pasted log of 20 MB
// took the scanner about two seconds; on the server's thread, every request waited for it.
import { parentPort } from 'node:worker_threads';
import { scanText } from './core/scan/index.js';
import type { ScanRequest, ScanReply } from './scan-thread.js';
import { injectionDetector } from './store/injection-model.js';

parentPort?.on('message', ({ id, text, scan }: ScanRequest) => {
  let reply: ScanReply;
  try {
    reply = { id, findings: scanText(text, { detector: injectionDetector(scan ? { scan } : undefined) }) };
  } catch (e) {
    reply = { id, error: (e as Error).message };
  }
  parentPort?.postMessage(reply);
});
