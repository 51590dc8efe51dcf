// Parse time of hostile memory files: pathological markdown (an unclosed `[` before a long
// paragraph of e-mail-like words, the CommonMark pathological cases) and very large files. Each
// case runs in a child process with a time limit, so a slow parser shows as "> limit" instead of
// hanging the benchmark.
// Run: npm run bench:format-hostile -- [sizeKB=250] [limitSeconds=60]
//      (CAIRN_DIST=/other/dist to measure another build side by side, e.g. the one before a fix)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = process.env.CAIRN_DIST ?? path.join(import.meta.dirname, '..', 'dist');
const FRONT =
  '---\nid: hostile\ntitle: Hostile\nkind: note\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n\n';

/** `unit` repeated to about `bytes` characters (joined by `sep`). */
function repeat(unit, bytes, sep = '') {
  return Array.from({ length: Math.max(1, Math.floor(bytes / (unit.length + sep.length))) }, () => unit).join(
    sep,
  );
}

const words = (bytes, word) => repeat(word, bytes, ' ');
export const CASES = {
  'unclosed [ in a setext heading, e-mail-like words': (n) =>
    `Title [unclosed ${words(n, 'name@example.com')}\n===\n`,
  'unclosed [ in a setext heading, a@b words': (n) => `Title [unclosed ${words(n, 'a@b')}\n===\n`,
  'unclosed [ in a setext heading, plain words': (n) => `Title [unclosed ${words(n, 'word')}\n===\n`,
  'unclosed [ then a table': (n) => `Intro [x ${words(n, 'www.example.com')}\n\n| a | b |\n|---|---|\n`,
  'nested emphasis': (n) => `${repeat('*a **a ', n / 2)}b${repeat(' a** a*', n / 2)}\n`,
  'emphasis openers without closers': (n) => `${repeat('_a ', n)}\n`,
  'link openers without closers': (n) => `${repeat('[a', n)}\n`,
  'link closers without openers': (n) => `${repeat('a]', n)}\n`,
  '[ (]( repeated': (n) => `${repeat('[ (](', n)}\n`,
  'nested brackets': (n) => `${repeat('[', n / 2)}a${repeat(']', n / 2)}\n`,
  'nested block quotes': (n) => `${repeat('> ', n)}a\n`,
  'backtick runs': (n) =>
    `e${Array.from({ length: Math.floor(Math.sqrt(2 * n)) }, (_, i) => '`'.repeat(i + 1)).join('e')}\n`,
  'unclosed links <': (n) => `${repeat('[a](<b', n)}\n`,
  'unclosed links': (n) => `${repeat('[a](b', n)}\n`,
  'table with many rows': (n) => `| a | b |\n|---|---|\n${repeat('| x | y |\n', n)}`,
  'table with many columns': (n) => `${repeat('| a ', n / 3)}|\n${repeat('|---', n / 3)}|\n`,
  '10 MB plain paragraphs': () => `${repeat('Plain words in a paragraph. '.repeat(4) + '\n\n', 10_000_000)}`,
  '10 MB with a table (remark)': () =>
    `| a | b |\n|---|---|\n| x | y |\n\n${repeat('Plain words in a paragraph. '.repeat(4) + '\n\n', 10_000_000)}`,
};

async function runOne(name, bytes) {
  const { parseMemory } = await import(pathToFileURL(path.join(dist, 'core/format/index.js')).href);
  const text = FRONT + CASES[name](bytes);
  const t0 = performance.now();
  const parsed = parseMemory(text, { path: 'memories/hostile.md' });
  const ms = performance.now() - t0;
  const codes = parsed.problems.map((p) => p.code).join(',') || '-';
  console.log(JSON.stringify({ ms, chars: text.length, codes }));
}

const main = process.argv[1] === import.meta.filename;
if (main && process.argv[2] === '--one') {
  await runOne(process.argv[3], Number(process.argv[4]));
} else if (main) {
  const bytes = Number(process.argv[2] ?? 250) * 1024;
  const limit = Number(process.argv[3] ?? 60);
  console.log(`dist: ${dist}`);
  for (const name of Object.keys(CASES)) {
    const child = spawnSync(process.execPath, [import.meta.filename, '--one', name, String(bytes)], {
      encoding: 'utf8',
      timeout: limit * 1000,
      env: { ...process.env, CAIRN_DIST: dist },
    });
    let shown = `> ${limit} s (stopped)`;
    if (child.status === 0) {
      const r = JSON.parse(child.stdout.trim().split('\n').pop());
      shown = `${r.ms.toFixed(0).padStart(7)} ms  ${String(r.chars).padStart(9)} chars  problems: ${r.codes}`;
    } else if (child.error?.code !== 'ETIMEDOUT') shown = `failed: ${child.stderr.split('\n')[0]}`;
    console.log(`${name.padEnd(52)} ${shown}`);
  }
}
