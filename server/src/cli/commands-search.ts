// `cairn search` and `cairn index`: finding memories by words and by meaning, offline. Both go
// through the store's search service (compose.ts); a short process indexes before it answers, says
// so on stderr and draws progress on a terminal.
import { setFlagsFromString } from 'node:v8';
import type { IndexProgress } from '../ops/search.js';
import { num, type Command } from './command.js';
import { EXIT, UsageError, oneLine, progressBar, writeJson, writeLine, writeText, type CliIO } from './io.js';

/** Files to (re)index before a search says so: a commit or two pass silently. */
const ANNOUNCE_FILES = 200;
/**
 * A search over a current index runs most of its code once: V8's optimizing compiler (TurboFan,
 * on background threads) cost about 40 of a warm `cairn search`'s 300 ms of CPU and saved none of
 * it. Turned off outright, though, it left the long loops off too: a first search whose answer held
 * a 50 MB memory spent 49 s scanning it, against 10 s optimized. So it stays on, and a function is
 * weighed for it after sixteen times as much run as V8's default: code a search runs briefly is
 * never optimized, a scan that runs for seconds soon is. It changes only how fast the code runs,
 * never what it does. bin/cairn.js sets the same before the code loads (its code cache is made
 * under the flags it runs with).
 */
export const SEARCH_V8_FLAGS = ['--interrupt-budget=1048576'];

function optimizeOnlyLongWork(): void {
  for (const flag of SEARCH_V8_FLAGS) setFlagsFromString(flag);
}

/** Indexing progress on stderr: one line when it starts, a bar on a terminal. */
function indexingReporter(io: CliIO) {
  const bar = progressBar(io, 'indexing');
  let said: 'files' | 'embedding' | null = null;
  return {
    update(p: IndexProgress) {
      if (p.phase === 'done') {
        if (said) bar.done();
        return;
      }
      const step = p.phase === 'embedding' ? 'embedding' : 'files';
      if (said !== step && (p.total >= ANNOUNCE_FILES || step === 'embedding')) {
        if (said) bar.done();
        said = step;
        const what = p.phase === 'embedding' ? `embedding ${p.total} chunks` : `indexing ${p.total} files`;
        io.stderr.write(
          `cairn: ${what} (the first search in a clone builds the index; later ones reuse it)\n`,
        );
      }
      if (said === step) bar.update(p.done, p.total);
    },
  };
}

export const searchCommand: Command = {
  name: 'search',
  summary: 'Search memories by keywords and meaning (hybrid BM25 + local embeddings)',
  usage:
    'cairn search QUERY [--limit K] [--max-tokens N] [--half-life DAYS] [--min-score X]\n' +
    '                   [--include-superseded] [--include-candidates] [--json]',
  needsStore: true,
  options: {
    limit: { type: 'string' },
    'max-tokens': { type: 'string' },
    'half-life': { type: 'string' },
    'min-score': { type: 'string' },
    'include-superseded': { type: 'boolean' },
    'include-candidates': { type: 'boolean' },
  },
  async run(args, io, open, root) {
    const query = args.positionals.join(' ').trim();
    if (!query) throw new UsageError('search needs a QUERY');
    // Relevance is relative to the best hit, so within [0, 1]: above 1 would silently drop everything.
    const minScore = num(args, 'min-score');
    if (minScore !== undefined && (minScore < 0 || minScore > 1))
      throw new UsageError(
        `--min-score is a relevance from 0 to 1, relative to the best hit; got ${minScore}`,
      );
    if (!io.longLived) optimizeOnlyLongWork();
    const ctx = await open();
    const search = await root.search(ctx, { background: false });
    const progress = indexingReporter(io);
    const answer = await search
      .search(
        {
          query,
          maxResults: num(args, 'limit'),
          maxTokens: num(args, 'max-tokens'),
          halfLifeDays: num(args, 'half-life'),
          minScore,
          includeSuperseded: Boolean(args.values['include-superseded']),
          includeCandidates: Boolean(args.values['include-candidates']),
        },
        { onProgress: (p) => progress.update(p) },
      )
      .finally(() => search.close());
    // Agents run this command too: an id that reads as an instruction is shown as its handle, which
    // every command takes back (core/withheld-id).
    const { withholdIdsIn, withheldIdsNote } = await import('../core/withheld-id.js');
    const { value: res, handles } = withholdIdsIn(answer);
    // Said once, on stderr, so a pipe of --json stays clean and nobody mistakes keyword-only for hybrid.
    for (const w of res.warnings) writeText(io, `cairn: ${w}\n`, 'stderr');
    if (args.json) {
      const { warnings: _w, ...rest } = res;
      const withheldIds = { handles, note: withheldIdsNote(handles) };
      writeJson(io, handles.length ? { ...rest, withheldIds } : rest);
      return EXIT.OK;
    }
    const mode = res.vector_enabled ? `hybrid, ${res.provider}` : 'keyword only';
    writeLine(
      io,
      `# ${res.entries.length} of ${res.totalResults} memories for "${query}" (${mode}, ${res.tokensUsed} tokens)`,
    );
    for (const e of res.entries) {
      writeLine(io, `\n## ${oneLine(e.topic)}`);
      writeLine(
        io,
        `id ${e.topicId} · ${e.status}${e.uncommitted ? ' (uncommitted edit)' : ''} · score ${e.score.toFixed(3)} · ${e.path}:${e.lines[0]}-${e.lines[1]}`,
      );
      if (e.summaryText) writeLine(io, `\n${e.summaryText}`);
      if (e.decisions.length) writeLine(io, `\nDecisions:\n${e.decisions.map((d) => `- ${d}`).join('\n')}`);
    }
    // Agents run this command too: flagged passages are withheld (ops/withhold.ts); say how many.
    if (res.withheld)
      writeLine(
        io,
        `\n${res.withheld} flagged passage${res.withheld === 1 ? ' was' : 's were'} withheld (prompt injection, ` +
          'secrets or hidden instructions); `cairn get ID` shows them to a person, `cairn allow ID RULE` lets agents read one.',
      );
    if (handles.length) writeLine(io, `\n${withheldIdsNote(handles)}.`);
    if (!res.entries.length)
      writeLine(io, '\nNothing matched. Try other words, or --include-superseded / --include-candidates.');
    return EXIT.OK;
  },
};

export const indexCommand: Command = {
  name: 'index',
  summary: 'Build or refresh the search index (and embed new chunks when a model is installed)',
  usage: 'cairn index',
  needsStore: true,
  async run(args, io, open, root) {
    const ctx = await open();
    const search = await root.search(ctx, { background: false });
    const progress = indexingReporter(io);
    const started = Date.now();
    const r = await search.index({ onProgress: (p) => progress.update(p) }).finally(() => search.close());
    const { warnings, ...counts } = r;
    for (const w of warnings) io.stderr.write(`cairn: ${w}\n`);
    if (args.json) writeJson(io, { success: true, ...counts, seconds: (Date.now() - started) / 1000 });
    else {
      writeLine(
        io,
        `indexed ${r.files} files (${r.added} added, ${r.changed} changed, ${r.removed} removed; ${r.chunks} chunks) ` +
          `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      writeLine(
        io,
        r.vector_enabled
          ? `embedded ${r.embedded} new chunks with ${r.provider}`
          : 'no embedding model installed: keyword-only search (cairn model pull, or cairn model import DIR)',
      );
    }
    return EXIT.OK;
  },
};
