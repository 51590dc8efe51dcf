// The executable's entry: parses argv and runs a command with what the composition root
// (compose.ts) builds: the store's operation context, its search service, the language server's
// and the MCP server's store openers.
import { parseArgs } from 'node:util';
import type { Command, CommandArgs } from './cli/command.js';
import { EXIT, UsageError, reportError, writeJson, type CliIO } from './cli/io.js';
import { COMMANDS, findCommand, loadCommands } from './cli/registry.js';
import { createRoot, openContext, type Root } from './compose.js';
import type { OpContext } from './ops/context.js';
import { packageVersion } from './package-root.js';

/** The hidden first argument that runs the resident search (resident-search.ts). */
const RESIDENT_SEARCH = '--resident-search';

const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function version(): string {
  return packageVersion();
}

async function helpText(): Promise<string> {
  const commands = await loadCommands();
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `cairn ${version()}: memory for AI coding agents, as markdown files in git`,
    '',
    'Usage: cairn COMMAND [ARGS] [--store DIR] [--json]',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'The store is --store DIR, else $CAIRN_STORE, else found upward from the current folder.',
    "`cairn help COMMAND` shows a command's options. Exit codes: docs/cli.md.",
  ].join('\n');
}

/** One command's help: `cairn help COMMAND`, `cairn COMMAND --help`. */
function writeCommandHelp(io: CliIO, cmd: Command, json: boolean): number {
  if (json) writeJson(io, { name: cmd.name, summary: cmd.summary, usage: cmd.usage });
  else io.stdout.write(`${cmd.summary}\n\nUsage: ${cmd.usage}\n\n`);
  return EXIT.OK;
}

function unknownCommand(name: string): UsageError {
  return new UsageError(
    `unknown command "${name}"; the commands are: ${COMMANDS.map((c) => c.name).join(', ')}`,
  );
}

/** A write interrupted by a crash is finished or undone by the next command, which says so once. */
export function reportRecoveries(ctx: OpContext, write: (line: string) => void): void {
  ctx.store.repo.onRecovered = (summary) => write(`cairn: recovered from an interrupted write: ${summary}\n`);
}

function defaultIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: Boolean(process.stderr.isTTY),
  };
}

export async function main(
  argv: string[],
  io: CliIO = defaultIO(),
  root: Root = createRoot({ env: io.env, cwd: io.cwd }),
): Promise<number> {
  const [name, ...rest] = argv;
  // Started by `cairn search` (bin/resident-client.js), never by a person: STORE_DIR SOCKET.
  if (name === RESIDENT_SEARCH) {
    const { serveResidentSearch } = await import('./resident-search.js');
    return serveResidentSearch(rest[0], rest[1]);
  }
  const json = argv.includes('--json');
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    const topic = rest.find((a) => !a.startsWith('-'));
    if (topic !== undefined) {
      const cmd = await findCommand(topic);
      return cmd ? writeCommandHelp(io, cmd, json) : reportError(io, unknownCommand(topic), json);
    }
    if (json)
      writeJson(io, {
        version: version(),
        commands: (await loadCommands()).map((c) => ({ name: c.name, summary: c.summary, usage: c.usage })),
      });
    else io.stdout.write((await helpText()) + '\n');
    return EXIT.OK;
  }
  if (name === '--version' || name === 'version') {
    if (json) writeJson(io, { version: version() });
    else io.stdout.write(`${version()}\n`);
    return EXIT.OK;
  }
  const command: Command | undefined = await findCommand(name);
  if (!command) return reportError(io, unknownCommand(name), json);
  if (command.rawArgs && !(rest.length === 1 && ['--help', '-h'].includes(rest[0]))) {
    try {
      return await command.run(
        { positionals: rest, values: {}, json: false },
        io,
        () => Promise.reject(new Error(`${name} opens no store`)),
        root,
      );
    } catch (err) {
      return reportError(io, err, false);
    }
  }
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: rest,
        options: { ...GLOBAL_OPTIONS, ...(command.options ?? {}) },
        allowPositionals: true,
        strict: true,
      });
    } catch (e) {
      throw new UsageError(`${(e as Error).message.split('\n')[0]}\nusage: ${command.usage}`);
    }
    if (parsed.values.help) return writeCommandHelp(io, command, Boolean(parsed.values.json));
    const args: CommandArgs = {
      positionals: parsed.positionals,
      values: parsed.values,
      json: Boolean(parsed.values.json),
    };
    /** A store opened before the command runs, handed to its first open(). */
    let early: OpContext | undefined;
    const open = async () => {
      if (early) {
        const ctx = early;
        early = undefined;
        return ctx;
      }
      const ctx = await (root.open ?? openContext)({
        store: parsed.values.store as string | undefined,
        env: io.env,
        cwd: io.cwd,
      });
      reportRecoveries(ctx, (line) => io.stderr.write(line));
      await ctx.store.repo.recoverIfInterrupted();
      return ctx;
    };
    // A handle an agent was shown for an id that reads as an instruction (core/withheld-id: the
    // prefix is written here so that a command's start does not load the scanner), pasted into a
    // command, names that id.
    if (args.positionals.some((a) => a.includes('withheld-id-'))) {
      const { withIdsForHandles } = await import('./ops/id-handles.js');
      early = await open();
      const ctx = early;
      args.positionals = await Promise.all(args.positionals.map((a) => withIdsForHandles(ctx, a)));
    }
    return await command.run(args, io, open, root);
  } catch (err) {
    return reportError(io, err, json);
  }
}
