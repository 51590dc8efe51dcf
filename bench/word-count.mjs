// Counting terms while indexing (search/word-table.ts) over SciFact's abstracts, a fifth of which
// hold some non-ASCII text: median and best of 7 rounds. Run it in two trees, alternating, for an
// A/B: `node bench/word-count.mjs [TREE]` (TREE: a built checkout, default this one).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const tree = path.resolve(process.argv[2] ?? '.');
const { WordTable } = await import(pathToFileURL(path.join(tree, 'dist/search/word-table.js')).href);
const corpus = new URL('../../shared/data/scifact/corpus.beir.jsonl', import.meta.url);
const docs = readFileSync(process.env.SCIFACT_CORPUS ?? corpus, 'utf8')
  .trim()
  .split('\n')
  .map((l) => {
    const d = JSON.parse(l);
    return `${d.title}\n${d.text}`;
  });
const nonAscii = docs.filter((d) => Buffer.byteLength(d) !== d.length).length;
const times = [];
for (let r = 0; r < 7; r++) {
  const table = new WordTable();
  const t0 = performance.now();
  for (const d of docs) table.count(d);
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(
  `${tree}: ${docs.length} abstracts (${nonAscii} with non-ASCII text); ` +
    `median ${times[3].toFixed(0)} ms, best ${times[0].toFixed(0)} ms`,
);
