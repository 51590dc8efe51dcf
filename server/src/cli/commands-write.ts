// store and import: payloads in, governance decides, one commit each.
import { CairnError, isCairnError } from '../core/errors.js';
import { storeMemory, type StoreResult } from '../ops/store-memory.js';
import { num, positionals, str, strs, type Command } from './command.js';
import {
  EXIT,
  UsageError,
  progressBar,
  readAllStdin,
  readInputFile,
  writeJson,
  writeLine,
  writeText,
  type CliIO,
} from './io.js';

function describe(io: CliIO, r: StoreResult): void {
  const id = r.metadata.topic_id;
  if (r.dropped) writeLine(io, `dropped ${id}: ${r.reason}`);
  else if (r.unchanged) writeLine(io, `unchanged ${id}: ${r.reason}`);
  else if (r.staged)
    writeLine(
      io,
      `candidate ${id} on branch ${r.metadata.branch}: ${r.reason}\n  review with: cairn review; approve with: cairn accept ${id}`,
    );
  else
    writeLine(
      io,
      `stored ${id} (${r.metadata.action}, commit ${r.metadata.commit?.slice(0, 8)}): ${r.reason}`,
    );
  for (const f of r.findings) writeLine(io, `  flagged line ${f.line + 1}: ${f.code} ${f.message}`);
}

export const storeCommand: Command = {
  name: 'store',
  summary: 'Store a conversation summary (JSON on stdin, or flags)',
  usage:
    'cairn store [--topic T --context C] [--decision D]... [--rationale R]... [--question Q]... [--next N]...\n' +
    '            [--reference R]... [--tag T]... [--supersedes ID]... [--kind K] [--id ID] [--origin O]\n' +
    '            [--confidence X] [--agent NAME] [--session ID]\n' +
    '  Without --topic, reads one JSON payload from stdin (see docs/cli.md).',
  needsStore: true,
  options: {
    topic: { type: 'string' },
    context: { type: 'string' },
    decision: { type: 'string', multiple: true },
    rationale: { type: 'string', multiple: true },
    question: { type: 'string', multiple: true },
    next: { type: 'string', multiple: true },
    reference: { type: 'string', multiple: true },
    tag: { type: 'string', multiple: true },
    supersedes: { type: 'string', multiple: true },
    kind: { type: 'string' },
    id: { type: 'string' },
    origin: { type: 'string' },
    confidence: { type: 'string' },
    agent: { type: 'string' },
    session: { type: 'string' },
  },
  async run(args, io, open) {
    let payload: unknown;
    if (str(args, 'topic') !== undefined || str(args, 'context') !== undefined) {
      payload = {
        topic: str(args, 'topic'),
        context: str(args, 'context'),
        decisions: strs(args, 'decision'),
        rationale: strs(args, 'rationale'),
        openQuestions: strs(args, 'question'),
        nextSteps: strs(args, 'next'),
        references: strs(args, 'reference'),
        tags: strs(args, 'tag'),
        supersedes: strs(args, 'supersedes'),
        kind: str(args, 'kind'),
        origin: str(args, 'origin'),
        confidence: num(args, 'confidence'),
        agentName: str(args, 'agent'),
        metadata: { topicId: str(args, 'id'), sessionId: str(args, 'session') },
      };
    } else {
      if (io.stdin.isTTY) throw new UsageError('give --topic and --context, or pipe a JSON payload on stdin');
      const text = await readAllStdin(io);
      try {
        payload = JSON.parse(text);
      } catch (e) {
        throw new CairnError(
          'INVALID_PAYLOAD',
          `stdin is not valid JSON (${(e as Error).message}); send one JSON object`,
          {
            field: 'payload',
          },
        );
      }
    }
    const ctx = await open();
    const result = await storeMemory(ctx, payload, { channel: 'person', command: 'store' });
    if (args.json) writeJson(io, result);
    else describe(io, result);
    return result.dropped ? EXIT.DROPPED : EXIT.OK;
  },
};

export const importCommand: Command = {
  name: 'import',
  summary: "Store many payloads from a JSON-lines file, or another assistant's memory (--source)",
  usage: 'cairn import FILE|- --format jsonl | cairn import --source chatgpt|gemini FILE|- [--dry-run]',
  needsStore: true,
  options: { format: { type: 'string' }, source: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  async run(args, io, open) {
    if (args.values.source !== undefined) {
      const { importFromAssistant } = await import('./commands-learn.js');
      return importFromAssistant(args, io, open);
    }
    const [file] = positionals(args, this.usage, 0, 1);
    if (!file) throw new UsageError('import needs a FILE');
    // Accepted for --source only: ignored here, a "dry run" imported every line.
    if (args.values['dry-run'])
      throw new UsageError(
        '--dry-run works with --source only; a JSON-lines import has none (every line becomes a candidate to review)',
      );
    const format = str(args, 'format') ?? 'jsonl';
    if (format !== 'jsonl') throw new UsageError(`--format ${format} is not supported; use --format jsonl`);
    const lines = (await readInputFile(io, file)).split('\n');
    const ctx = await open();
    const counts = { active: 0, candidate: 0, dropped: 0, unchanged: 0, failed: 0 };
    const items: unknown[] = [];
    const bar = progressBar(io, 'importing');
    const total = lines.filter((l) => l.trim()).length;
    let done = 0;
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      let result: StoreResult | null = null;
      try {
        let payload: unknown;
        try {
          payload = JSON.parse(lines[i]);
        } catch (e) {
          throw new CairnError('INVALID_PAYLOAD', `not valid JSON: ${(e as Error).message}`, {
            field: 'payload',
          });
        }
        result = await storeMemory(ctx, payload, { channel: 'import', command: 'import' });
        if (result.dropped) counts.dropped++;
        else if (result.unchanged) counts.unchanged++;
        else counts[result.metadata.status as 'active' | 'candidate']++;
        items.push({ line: i + 1, ...result });
      } catch (err) {
        if (!isCairnError(err)) throw err;
        counts.failed++;
        items.push({ line: i + 1, success: false, errorCode: err.code, error: err.message });
        if (!args.json) writeText(io, `${file}:${i + 1}: ${err.message} [${err.code}]\n`, 'stderr');
      }
      bar.update(++done, total);
    }
    bar.done();
    if (args.json) writeJson(io, { success: counts.failed === 0, counts, items });
    else
      writeLine(
        io,
        // Only what this import wrote counts as imported: a failed or dropped line is not, nor one
        // already in the store (unchanged: importing a file again imports nothing).
        `imported ${counts.active + counts.candidate} of ${total} payloads: ${counts.active} active, ${counts.candidate} candidates, ` +
          `${counts.unchanged} unchanged, ${counts.dropped} dropped, ${counts.failed} failed`,
      );
    return counts.failed ? EXIT.FAILED : EXIT.OK;
  },
};
