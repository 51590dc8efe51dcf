// What every operation needs: the open store, a clock, and who is writing.
import type { Author } from '../store/git/index.js';
import type { Store } from '../store/store.js';
import type { SearchService } from './search.js';
import type { WorkspaceParser } from './workspace/parser-process.js';
import type { ScanElsewhere } from './workspace/problems.js';

export interface OpContext {
  store: Store;
  /** Injected so tests and imports can pin time. */
  now: () => Date;
  /** The person or process on whose behalf Cairn writes (git config user, else "Cairn"). */
  author: { name: string; email: string };
}

/** What a long-lived front end gets per store from the composition root (compose.ts). */
export interface StoreServices {
  ctx: OpContext;
  search: SearchService;
  /** Stops the store's search process. */
  close(): Promise<void>;
}

/** Opens the store at a folder with its services; the root injects it into servers. */
export type OpenStore = (dir: string) => Promise<StoreServices>;

/** What the composition root (compose.ts) hands the CLI's commands besides their store. */
export interface Root {
  /** The author of a person's own commands, for `cairn init` (no store yet). */
  author(): Promise<{ name: string; email: string }>;
  /**
   * The search service of an open store: in this thread for a short command (indexing runs before
   * the answer), or in a child process for a server (answers never wait for a build).
   */
  search(
    ctx: OpContext,
    opts: { background: boolean; log?: (message: string) => void },
  ): Promise<SearchService>;
  /**
   * Opens the store a command names (default: compose.ts's openContext). The resident search hands
   * out the context it holds open, and declines other stores.
   */
  open?(opts: { store?: string; env: NodeJS.ProcessEnv; cwd: string }): Promise<OpContext>;
  /**
   * Scans the store's memories ahead of the answers that withhold from them, in a worker thread at
   * the lowest priority, where one can run (scan-ahead.ts); resolves once it started or was not.
   */
  scanAhead(ctx: OpContext): Promise<void>;
  /**
   * Runs the scanner of long files in a worker thread (scan-thread.ts), so a language server
   * answers meanwhile; undefined when none is built.
   */
  scanElsewhere(): ScanElsewhere | undefined;
  /** Parses a language server's workspace in child processes; undefined when none is built. */
  workspaceParser(): WorkspaceParser | undefined;
  /** Opens the store at a folder with its search in a child process: a language server does this per store. */
  openStore(dir: string, log?: (message: string) => void): Promise<StoreServices>;
}

export function isoNow(ctx: OpContext): string {
  return ctx
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
}

/** Agents write under their own name so `git log --author` tells who wrote what. */
export function authorFor(ctx: OpContext, agentName?: string): Author {
  const timestamp = Math.floor(ctx.now().getTime() / 1000);
  if (!agentName) return { ...ctx.author, timestamp, timezoneOffset: 0 };
  // A git ident cannot hold <, > or control characters: they would break the commit object.
  agentName = agentName.replace(/[\u0000-\u001F\u007F-\u009F<>]/g, '').trim() || 'agent';
  const slug =
    agentName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'agent';
  return {
    name: `${agentName} (agent)`,
    email: `${slug}@agents.cairn.invalid`,
    timestamp,
    timezoneOffset: 0,
  };
}
