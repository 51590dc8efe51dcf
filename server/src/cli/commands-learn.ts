// Filling and tidying the store: learn (from agent transcripts), import-prompt and import --source
// (another assistant's memory), refresh (the generated index of MEMORY.md).
import { escapeForTerminal } from '../core/control-chars.js';
import { ASSISTANT_SOURCES, importPrompt, type AssistantSource } from '../core/learn/assistant-dump.js';
import { TRANSCRIPT_FORMATS, type TranscriptFormat } from '../core/learn/transcripts.js';
import type { Proposal } from '../ops/learn.js';
import { num, positionals, str, type Command } from './command.js';
import { EXIT, UsageError, readInputFile, writeJson, writeLine, writeText, type CliIO } from './io.js';

function source(value: string | undefined): AssistantSource {
  if (!value || !(ASSISTANT_SOURCES as readonly string[]).includes(value))
    throw new UsageError(`--source must be one of ${ASSISTANT_SOURCES.join(', ')}`);
  return value as AssistantSource;
}

function report(io: CliIO, proposals: Proposal[], counts: Record<string, number>, what: string): void {
  for (const p of proposals) {
    const where = p.id ? ` ${p.id}` : '';
    // Transcript text is untrusted: control characters are shown escaped, never sent to the terminal.
    const line = `${p.outcome}${where}: ${p.text} (${p.why}${p.reason ? `; ${p.reason}` : ''})`;
    writeLine(io, escapeForTerminal(line));
  }
  writeLine(
    io,
    `${what}: ${counts.active} active, ${counts.candidate} candidates, ${counts.duplicate} duplicates skipped, ` +
      `${counts.unchanged} unchanged, ${counts.dropped} dropped, ${counts.failed} failed`,
  );
}

export const learnCommand: Command = {
  name: 'learn',
  summary:
    'Learn durable statements from agent transcripts (Claude Code, Copilot, chat JSON, ChatGPT export, markdown)',
  usage: `cairn learn FILE... [--format ${TRANSCRIPT_FORMATS.join('|')}] [--dry-run] [--json]`,
  needsStore: true,
  options: { format: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  async run(args, io, open) {
    if (!args.positionals.length)
      throw new UsageError('learn needs at least one transcript FILE (or - for stdin)');
    const format = str(args, 'format');
    if (format && !(TRANSCRIPT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format ${format} is not known; use ${TRANSCRIPT_FORMATS.join(', ')}`);
    const inputs = [];
    for (const file of args.positionals)
      inputs.push({
        name: file,
        text: await readInputFile(io, file),
        format: format as TranscriptFormat | undefined,
      });
    const { learnFromTranscripts } = await import('../ops/learn.js');
    const dryRun = Boolean(args.values['dry-run']);
    const r = await learnFromTranscripts(await open(), inputs, { dryRun });
    if (args.json) writeJson(io, { success: r.counts.failed === 0, ...r });
    else {
      writeLine(
        io,
        `${r.transcripts} transcript(s), ${r.messages.read} messages: ${r.messages.alreadyLearned} learned before, ` +
          `${r.messages.background} background or tool messages skipped`,
      );
      report(io, r.proposals, r.counts, dryRun ? 'dry run, nothing written; it would be' : 'learned');
      if (r.model)
        writeLine(io, `local model ${r.model.name} at ${r.model.endpoint}: ${r.model.answered} answers`);
    }
    for (const w of r.warnings) writeText(io, `cairn learn: ${escapeForTerminal(w)}\n`, 'stderr');
    return r.counts.failed ? EXIT.FAILED : EXIT.OK;
  },
};

export const importPromptCommand: Command = {
  name: 'import-prompt',
  summary: "Print the prompt that gets another assistant's memory out for cairn import --source",
  usage: `cairn import-prompt --source ${ASSISTANT_SOURCES.join('|')}`,
  options: { source: { type: 'string' } },
  async run(args, io) {
    const from = source(str(args, 'source'));
    if (args.json) writeJson(io, { source: from, prompt: importPrompt(from) });
    else writeText(io, `${importPrompt(from)}\n`);
    return EXIT.OK;
  },
};

/** `cairn import --source chatgpt|gemini FILE|-`: called by the import command when --source is set. */
export async function importFromAssistant(
  args: Parameters<Command['run']>[0],
  io: CliIO,
  open: Parameters<Command['run']>[2],
): Promise<number> {
  const from = source(str(args, 'source'));
  const [file] = positionals(args, 'cairn import --source chatgpt|gemini FILE|- [--dry-run]', 0, 1);
  if (!file) throw new UsageError(`import --source ${from} needs a FILE (or - for stdin)`);
  const text = await readInputFile(io, file);
  const { importAssistantMemory } = await import('../ops/learn.js');
  const dryRun = Boolean(args.values['dry-run']);
  const r = await importAssistantMemory(await open(), from, text, { dryRun });
  if (args.json) writeJson(io, { success: r.counts.failed === 0, ...r });
  else
    report(
      io,
      r.proposals,
      r.counts,
      // What this import wrote: a statement already in the store (a duplicate, unchanged) is not.
      dryRun
        ? `dry run, nothing written; ${r.statements} statements would be`
        : `imported ${r.counts.active + r.counts.candidate} of ${r.statements} statements`,
    );
  return r.counts.failed ? EXIT.FAILED : EXIT.OK;
}

export const refreshCommand: Command = {
  name: 'refresh',
  summary: "Rebuild MEMORY.md's generated index of active decisions and conventions",
  usage: 'cairn refresh [--dry-run] [--json]',
  needsStore: true,
  options: { 'dry-run': { type: 'boolean' } },
  async run(args, io, open) {
    const { refreshMemoryMd } = await import('../ops/refresh.js');
    const dryRun = Boolean(args.values['dry-run']);
    const result = await refreshMemoryMd(await open(), { dryRun });
    if (args.json) writeJson(io, { success: true, dryRun, ...result });
    else if (dryRun) writeText(io, `${result.block}\n`);
    else if (!result.changed) writeLine(io, 'MEMORY.md index already up to date; nothing committed');
    else
      writeLine(
        io,
        `refreshed MEMORY.md index: ${result.decisions} decisions, ${result.conventions} conventions ` +
          `(commit ${result.commit?.slice(0, 8)}; undo with cairn undo)` +
          (result.withheld
            ? `; ${result.withheld} withheld from agents (a flagged title as a note, an id that reads as an instruction as its handle)`
            : ''),
      );
    return EXIT.OK;
  },
};

export const consolidateCommand: Command = {
  name: 'consolidate',
  summary: 'Propose merging duplicates and retiring stale notes, each as a candidate branch to review',
  usage: 'cairn consolidate [--dry-run] [--stale-days N] [--json]',
  needsStore: true,
  options: { 'dry-run': { type: 'boolean' }, 'stale-days': { type: 'string' } },
  async run(args, io, open) {
    const staleDays = num(args, 'stale-days');
    if (staleDays !== undefined && !(staleDays > 0))
      throw new UsageError('--stale-days must be a positive number');
    const { consolidate } = await import('../ops/consolidate.js');
    const dryRun = Boolean(args.values['dry-run']);
    const r = await consolidate(await open(), { dryRun, staleDays });
    if (args.json) writeJson(io, { success: true, ...r });
    else {
      for (const p of r.proposals) {
        const what = p.kind === 'stale' ? `mark ${p.retire} stale` : `${p.retire} superseded by ${p.keep}`;
        const where = p.branch ? ` (${p.branch})` : '';
        writeLine(io, escapeForTerminal(`${p.outcome}: ${what}${where}: ${p.reason}`));
      }
      const made = r.proposals.filter((p) => p.outcome === 'proposed').length;
      writeLine(
        io,
        dryRun
          ? `dry run: ${r.proposals.length} proposal(s), nothing written`
          : `${made} proposal(s) made as candidate branches; nothing changed on main. Review with: cairn review`,
      );
    }
    return EXIT.OK;
  },
};
