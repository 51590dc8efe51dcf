// Spot-check for bench/scifact.mjs --cli-check: the built `cairn search --json` ranks a small
// SciFact store exactly as the in-process ranking the evaluation uses (searchHybrid).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SearchIndex } from '../dist/search/index-store.js';
import { searchHybrid } from '../dist/search/search.js';
import { parseMemory, parseNote } from '../dist/core/format/index.js';
import { chunkMetaFromMemory, chunkMetaFromNote } from '../dist/core/search/meta.js';
import { memoryText } from './scifact-lib.mjs';

const BIN = new URL('../bin/cairn.js', import.meta.url).pathname;
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'eval', GIT_AUTHOR_EMAIL: 'eval@example.com' };
Object.assign(GIT_ENV, { GIT_COMMITTER_NAME: 'eval', GIT_COMMITTER_EMAIL: 'eval@example.com' });

/** Builds a store of the first `size` abstracts, then compares CLI and in-process top-20 per query. */
export async function cliCheck({ corpus, queries, size = 300 }) {
  const parent = mkdtempSync(join(tmpdir(), 'cairn-scifact-cli-'));
  const dir = join(parent, 'store');
  try {
    const run = (cmd, args) =>
      execFileSync(cmd, args, {
        cwd: dir,
        env: GIT_ENV,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    execFileSync(process.execPath, [BIN, 'init', dir], { env: GIT_ENV, encoding: 'utf8' });
    const docs = corpus.slice(0, size);
    for (const d of docs) writeFileSync(join(dir, 'memories', `d${d._id}.md`), memoryText(d));
    run('git', ['add', '-A']);
    run('git', ['commit', '-qm', 'SciFact sample']);
    // In process: the same files, the template's two files included, through the same ranking.
    const index = await SearchIndex.open(parent, { dir: join(parent, 'index') });
    const files = docs.map((d) => {
      const path = `memories/d${d._id}.md`;
      const text = memoryText(d);
      return { path, text, meta: chunkMetaFromMemory(parseMemory(text, { path }), { status: 'active' }) };
    });
    const template = (path) => readFileSync(join(dir, path), 'utf8');
    const conventions = 'memories/cairn-store-conventions.md';
    const active = { status: 'active' };
    files.push(
      {
        path: 'MEMORY.md',
        text: template('MEMORY.md'),
        meta: chunkMetaFromNote(parseNote(template('MEMORY.md'), { path: 'MEMORY.md' }), active),
      },
      {
        path: conventions,
        text: template(conventions),
        meta: chunkMetaFromMemory(parseMemory(template(conventions), { path: conventions }), active),
      },
    );
    await index.refresh(files);
    let same = 0;
    for (const q of queries) {
      const cli = JSON.parse(
        run(process.execPath, [
          BIN,
          'search',
          q.text,
          '--json',
          '--limit',
          '20',
          '--max-tokens',
          '1000000',
          '--min-score',
          '0',
        ]),
      );
      const cliPaths = cli.entries.map((e) => e.path).filter((p) => p.startsWith('memories/d'));
      const { hits } = await searchHybrid(index, q.text, null, { minScore: 0 });
      const inProcess = [...new Set(hits.map((h) => index.pathOf(h.key)))].slice(0, cliPaths.length);
      const ok = JSON.stringify(cliPaths) === JSON.stringify(inProcess);
      if (ok) same++;
      else
        console.log(
          `CLI differs for "${q.text}":\n  cli ${cliPaths.join(' ')}\n  in  ${inProcess.join(' ')}`,
        );
    }
    console.log(
      `\nCLI spot-check: ${same} of ${queries.length} queries rank the same through \`cairn search --json\``,
    );
    index.close();
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
