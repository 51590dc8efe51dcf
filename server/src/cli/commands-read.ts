// init, get, list, log, status: looking at a store.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CairnError, isCairnError } from '../core/errors.js';
import { assertSafeId } from '../core/payload.js';
import { createStore } from '../ops/init.js';
import type { MemoryStatus } from '../core/types.js';
import { flaggedFindings, markFlaggedLines } from '../core/withhold.js';
import { readLog } from '../ops/log.js';
import { listMemories, showMemory, storeStatus } from '../ops/query.js';
import { detectorOf, readLinesForAgent } from '../ops/withhold.js';
import { num, positionals, str, type Command, type CommandArgs } from './command.js';
import { EXIT, UsageError, oneLine, writeJson, writeLine, writeText } from './io.js';

export const initCommand: Command = {
  name: 'init',
  summary: 'Create a new store (a git repository) from memory-template',
  usage: 'cairn init DIR',
  async run(args, io, _open, root) {
    const dir = initFolder(args, io.cwd);
    await checkNewFolder(path.resolve(io.cwd, dir));
    const r = await createStore(path.resolve(io.cwd, dir), await root.author());
    if (args.json) writeJson(io, { success: true, ...r });
    else {
      writeLine(
        io,
        `Created a Cairn store in ${r.root} (first commit ${r.commit.slice(0, 8)}, ${r.files.length} files).`,
      );
      if (!r.mergeDriver)
        writeLine(
          io,
          'git is not installed: run `cairn setup` there once it is, to register the memory merge driver.',
        );
      writeLine(io, `Next: cd ${dir} && cairn store --topic "..." --context "..."`);
    }
    return EXIT.OK;
  },
};

/**
 * The folder of the new store: DIR, or `--store DIR` (every command takes it). Both naming
 * different folders is a usage error: creating one and ignoring the other left the store where
 * the person did not look for it. $CAIRN_STORE is not asked: it names an existing store.
 */
function initFolder(args: CommandArgs, cwd: string): string {
  const [dir] = positionals(args, 'cairn init DIR', 0, 1);
  const store = str(args, 'store');
  if (dir && store && path.resolve(cwd, dir) !== path.resolve(cwd, store))
    throw new UsageError(
      `init was given two folders: ${dir} and --store ${store}; name the new store once: cairn init DIR`,
    );
  const folder = dir || store;
  if (!folder) throw new UsageError('init needs a folder: cairn init DIR');
  return folder;
}

/** DIR is a folder, or can be one: neither it nor a folder above it is a file. */
async function checkNewFolder(root: string): Promise<void> {
  for (let p = root; ; p = path.dirname(p)) {
    const info = await stat(p).catch(() => null);
    if (info && !info.isDirectory())
      throw new UsageError(
        p === root
          ? `${root} is a file, not a folder; choose a new folder for the store`
          : `cannot create ${root}: ${p} is a file, not a folder`,
      );
    if (info || p === path.dirname(p)) return;
  }
}

function looksLikePath(arg: string): boolean {
  return arg.includes('/') || arg.endsWith('.md');
}

export const getCommand: Command = {
  name: 'get',
  summary: 'Show a memory by id, or exact lines of a file by path',
  usage: 'cairn get ID|PATH [--from N] [--lines M]',
  needsStore: true,
  options: { from: { type: 'string' }, lines: { type: 'string' } },
  async run(args, io, open) {
    const target = args.positionals[0];
    if (!target) throw new UsageError(`usage: ${this.usage}`);
    const ctx = await open();
    const isPath = looksLikePath(target);
    if (isPath || str(args, 'from') || str(args, 'lines')) {
      // Exact lines are what an agent in a shell reads after `cairn search`: the same as MCP
      // memory_get, flagged passages withheld. `cairn get ID` shows a person everything, marked.
      // An id with --from/--lines names its file, memories/ID.md (checked first: it is a path then).
      if (!isPath) assertSafeId(target);
      const file = isPath ? target : `memories/${target}.md`;
      const r = await readLinesForAgent(ctx, file, num(args, 'from') ?? 1, num(args, 'lines')).catch(
        (e: unknown) => {
          if (isPath || !isCairnError(e) || e.code !== 'NOT_FOUND') throw e;
          throw new CairnError(
            'NOT_FOUND',
            `no memory "${target}" in the work tree (${file}); \`cairn list\` shows the ids`,
          );
        },
      );
      if (args.json) writeJson(io, r);
      else {
        writeText(io, r.text + (r.text ? '\n' : ''));
        if (r.withheld)
          writeText(
            io,
            `cairn: ${r.withheld} flagged passage${r.withheld === 1 ? '' : 's'} withheld; a person sees ` +
              'them marked with `cairn get ID`\n',
            'stderr',
          );
      }
      return EXIT.OK;
    }
    const m = await showMemory(ctx, target);
    // A person may read flagged text, marked; agents get it withheld (ops/withhold.ts). Allowances
    // recorded on main do not cover a candidate's new text.
    const notOnMain = m.status === 'candidate' || m.status === 'rejected';
    const flagged = flaggedFindings(m.text, {
      allowed: notOnMain ? [] : m.history.allowed,
      detector: await detectorOf(ctx),
    });
    if (args.json) {
      writeJson(io, { ...m, flagged });
      return EXIT.OK;
    }
    const h = m.history.lastCommit;
    writeLine(io, `# ${oneLine(m.title)}`);
    writeLine(
      io,
      `id ${m.id} · ${m.status}${m.supersededBy ? ` by ${m.supersededBy}` : ''} · trust ${m.trust} · ${m.kind}` +
        (h ? ` · last ${h.action ?? 'commit'} by ${h.author} ${h.date.slice(0, 10)}` : ''),
    );
    for (const p of m.problemList) writeLine(io, `${m.path}:${p.line}: ${p.severity} ${p.code} ${p.message}`);
    const held = flagged.filter((f) => !f.allowed).length;
    if (held)
      writeLine(
        io,
        `${held} flagged finding${held === 1 ? '' : 's'}, marked "! flagged" below: withheld from agents`,
      );
    writeLine(io, '');
    const text = markFlaggedLines(m.text, flagged, m.id);
    writeText(io, text.endsWith('\n') ? text : text + '\n');
    return EXIT.OK;
  },
};

export const listCommand: Command = {
  name: 'list',
  summary: 'List memories with status and trust',
  usage: 'cairn list [--status active|superseded|candidate|rejected] [--all]',
  needsStore: true,
  options: { status: { type: 'string', multiple: true }, all: { type: 'boolean' } },
  async run(args, io, open) {
    const status = (args.values.status as string[] | undefined)?.flatMap((s) => s.split(',')) as
      MemoryStatus[] | undefined;
    const bad = status?.find((s) => !['active', 'superseded', 'candidate', 'rejected'].includes(s));
    if (bad)
      throw new UsageError(`--status ${bad} is not a status; use active, superseded, candidate or rejected`);
    const list = await listMemories(await open(), {
      status,
      includeRejected: Boolean(args.values.all) || status?.includes('rejected'),
    });
    if (args.json) {
      writeJson(io, { memories: list, total: list.length });
      return EXIT.OK;
    }
    if (!list.length)
      writeLine(
        io,
        status
          ? `No memory has status ${status.join(' or ')}.`
          : 'No memories yet. Add one with: cairn store --topic "..." --context "..."',
      );
    const idWidth = Math.min(48, Math.max(0, ...list.map((m) => m.id.length)));
    for (const m of list) {
      const problems = m.problems ? `  (${m.problems} problems)` : '';
      writeLine(
        io,
        `${m.status.padEnd(10)} ${m.trust.toFixed(2)}  ${m.id.padEnd(idWidth)}  ${oneLine(m.title)}${problems}`,
      );
    }
    return EXIT.OK;
  },
};

export const logCommand: Command = {
  name: 'log',
  summary: 'The audit trail: memory commits, candidates, rejections, dropped writes',
  usage: 'cairn log [ID] [--limit N]',
  needsStore: true,
  options: { limit: { type: 'string' } },
  async run(args, io, open) {
    const id = args.positionals[0];
    const ctx = await open();
    const entries = await readLog(ctx, { id, limit: num(args, 'limit') });
    // Silence would read as "nothing happened to it": a mistyped id is said, as `get` says it
    // (showMemory throws NOT_FOUND). A memory from the store's first commit has no entry of its own.
    if (id && !entries.length) await showMemory(ctx, id);
    if (args.json) {
      writeJson(io, { entries, total: entries.length });
      return EXIT.OK;
    }
    if (id && !entries.length) writeLine(io, `No log entries for ${id}.`);
    for (const e of entries) {
      const who = e.agentName ?? e.author;
      writeLine(
        io,
        `${e.timestamp.slice(0, 19).replace('T', ' ')}  ${e.result.padEnd(9)} ${e.command.padEnd(9)} ${e.id ?? '-'}` +
          `${who ? `  by ${who}` : ''}${e.proposedBy ? ` (proposed by ${e.proposedBy})` : ''}` +
          `${e.errorCode ? `  [${e.errorCode}]` : ''}` +
          `${e.reason ? `: ${e.reason}` : ''}` +
          // A rejection tag without a date is a lightweight one: its subject says what it lacks.
          `${e.source === 'tag' && !e.timestamp ? `  (${e.subject})` : ''}`,
      );
    }
    return EXIT.OK;
  },
};

export const statusCommand: Command = {
  name: 'status',
  summary: 'Store summary: counts by status, candidates, problems',
  usage: 'cairn status',
  needsStore: true,
  async run(args, io, open) {
    const s = await storeStatus(await open());
    if (args.json) {
      writeJson(io, s);
      return EXIT.OK;
    }
    writeLine(io, `Store ${s.root} on ${s.mainBranch} at ${s.head.slice(0, 8)} (commitMode ${s.commitMode})`);
    writeLine(
      io,
      `  ${s.counts.active} active, ${s.counts.superseded} superseded, ${s.counts.candidate} candidates, ${s.counts.rejected} rejected`,
    );
    if (s.candidates.length) writeLine(io, `  awaiting review: ${s.candidates.join(', ')} (cairn review)`);
    for (const f of s.invalidFiles)
      writeLine(
        io,
        `  ${f.path}: ${f.problems} problems (cairn get ${f.path.replace(/^memories\/|\.md$/g, '')})`,
      );
    for (const p of s.configProblems) writeLine(io, `  ${p}`);
    if (s.mergeDriver && !s.mergeDriver.registered)
      writeLine(
        io,
        '  the memory merge driver is not registered in this clone: run `cairn setup` (else concurrent edits of a memory conflict)',
      );
    else if (s.mergeDriver?.problem) writeLine(io, `  ${s.mergeDriver.problem}`);
    if (s.operation)
      writeLine(io, `  ${s.operation.what} is in progress: writes wait until it ends (${s.operation.fix})`);
    for (const c of s.conflicts)
      writeLine(
        io,
        `  unresolved merge conflict in ${c.path}` +
          (c.markers.length
            ? ` (markers on lines ${c.markers.join(', ')})`
            : ' (no markers left: git add it)'),
      );
    return EXIT.OK;
  },
};
