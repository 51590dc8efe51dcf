// The shape of a CLI command: argv options for node:util parseArgs, and a run function that gets
// the parsed arguments plus a lazily opened store.
import type { ParseArgsConfig } from 'node:util';
import type { OpContext, Root } from '../ops/context.js';
import { REASON_MAX } from '../core/payload.js';
import { UsageError, type CliIO } from './io.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandArgs {
  positionals: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  json: boolean;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options?: Options;
  /** Commands that do not need an existing store (init, help, model) open none. */
  needsStore?: boolean;
  /** Arguments passed through unparsed as positionals (git's merge driver: paths may start with -). */
  rawArgs?: boolean;
  /** `open` opens the store; `root` builds its search service and servers' store openers (compose.ts). */
  run(args: CommandArgs, io: CliIO, open: () => Promise<OpContext>, root: Root): Promise<number>;
}

export function str(args: CommandArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * A reason option (`--why`, `--note`): it goes into a commit or tag message kept forever, so one
 * longer than REASON_MAX characters is a usage error before anything is opened or written.
 */
export function reason(args: CommandArgs, name: string): string | undefined {
  const v = str(args, name);
  if (v !== undefined && v.trim().length > REASON_MAX)
    throw new UsageError(
      `--${name} is ${v.trim().length} characters; the limit is ${REASON_MAX}: say it shortly, the details belong in a memory`,
    );
  return v;
}

export function strs(args: CommandArgs, name: string): string[] {
  const v = args.values[name];
  return Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : [];
}

/**
 * The positional arguments, at least `min` and at most `max`. A word more is refused, never
 * dropped: `cairn forget redis sessions` forgot the memory `redis`, and `--why not useful` recorded
 * the reason "not".
 */
export function positionals(args: CommandArgs, usage: string, min: number, max = min): string[] {
  const given = args.positionals;
  if (given.length < min) throw new UsageError(`usage: ${usage}`);
  if (given.length > max)
    throw new UsageError(
      `too many arguments ("${given.slice(max).join(' ')}"): quote a text of several words\nusage: ${usage}`,
    );
  return given;
}

export function num(args: CommandArgs, name: string): number | undefined {
  const v = str(args, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new UsageError(`--${name} takes a number, got "${v}"`);
  return n;
}
