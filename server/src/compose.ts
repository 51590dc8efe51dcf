// The composition root: the one place where adapters are built and wired. It opens a store into
// the operation context (store, clock, author) and builds the store's search service, and hands
// both to the CLI, the language server and the MCP server, which import only ops/ and core/.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OpContext, Root, StoreServices } from './ops/context.js';
import type { ScanElsewhere } from './ops/workspace/index.js';
import type { WorkspaceParser } from './ops/workspace/parser-process.js';
import { packageRoot } from './package-root.js';
import { resolveAuthor } from './store/identity.js';
import { openStore, type LocateOptions } from './store/store.js';

export type { Root, StoreServices };

/** Opens the store (--store, else CAIRN_STORE, else upward from cwd) with its clock and author. */
export async function openContext(opts: LocateOptions & { env: NodeJS.ProcessEnv }): Promise<OpContext> {
  const store = await openStore(opts);
  const author = await resolveAuthor(opts.env, store.repo.root);
  return { store, author, now: () => new Date() };
}

export function createRoot(opts: { env: NodeJS.ProcessEnv; cwd: string }): Root {
  const search: Root['search'] = async (ctx, o) => {
    const child = o.background ? workerUrl('search-child') : null;
    if (child) {
      const { processSearchService, SEARCH_IDLE_MS } = await import('./ops/search-process.js');
      return processSearchService({
        storeRoot: ctx.store.root,
        entryUrl: child,
        env: opts.env,
        log: o.log ?? ((m) => process.stderr.write(`${m}\n`)),
        // A server's search process holds what its last build used: it exits after a quiet minute.
        idleMs: SEARCH_IDLE_MS,
      });
    }
    // Without the compiled child (sources run directly): the same host, yielding in this thread.
    const { inlineSearchService } = await import('./ops/search.js');
    return inlineSearchService(ctx, { background: o.background });
  };
  return {
    author: () => resolveAuthor(opts.env, null),
    search,
    async scanAhead(ctx) {
      const { startScanAhead } = await import('./scan-ahead.js');
      await startScanAhead(ctx, workerUrl('scan-worker')).catch(() => null);
    },
    scanElsewhere() {
      // Without the compiled entry (sources run directly) long files are scanned in this thread.
      const worker = workerUrl('scan-thread-worker');
      return worker ? lazyScanThread(worker) : undefined;
    },
    workspaceParser() {
      // Without the compiled entry (sources run directly) the workspace is parsed in this thread.
      const worker = workerUrl('workspace-worker');
      return worker ? lazyProcessParser(worker, bundleLauncher(worker)) : undefined;
    },
    async openStore(dir, log) {
      const ctx = await openContext({ store: dir, env: opts.env, cwd: opts.cwd });
      const service = await search(ctx, { background: true, log });
      return { ctx, search: service, close: () => service.close() };
    },
  };
}

/**
 * The process parser, its module loaded on the first parse: every command builds the root, and
 * only a language server parses the workspace.
 */
function lazyProcessParser(worker: URL, launcher?: string): WorkspaceParser {
  let parser: Promise<WorkspaceParser> | null = null;
  const loaded = () =>
    (parser ??= import('./ops/workspace/parser-process.js').then((m) =>
      m.processWorkspaceParser(worker, { launcher }),
    ));
  const lazy: WorkspaceParser = async function* (root, rels) {
    yield* (await loaded())(root, rels);
  };
  lazy.prestart = () => loaded().then((p) => p.prestart?.() ?? (() => {}));
  return lazy;
}

/** The scan thread, its module loaded on the first long file: only a language server scans them. */
function lazyScanThread(worker: URL): ScanElsewhere {
  let scan: Promise<ScanElsewhere> | null = null;
  return async (text, settings, token) => {
    scan ??= import('./scan-thread.js').then((m) => m.scanThread(worker));
    return (await scan)(text, settings, token);
  };
}

/**
 * The launcher that starts a bundle's entry with the code cache (bin/bundle-child.cjs), for an
 * entry of the bundle; undefined for tsc's output or when it is missing.
 */
export function bundleLauncher(entry: URL): string | undefined {
  if (!entry.pathname.endsWith('.cjs')) return undefined;
  const launcher = path.join(packageRoot(), 'bin', 'bundle-child.cjs');
  return existsSync(launcher) ? launcher : undefined;
}

/**
 * A compiled entry (the search child, the workspace worker) next to the running code: the
 * bundle's `name`.cjs, or tsc's `name`.js; from
 * the TypeScript sources (tests), the compiled one in dist/. Null when nothing is built.
 */
export function workerUrl(
  name: 'search-child' | 'workspace-worker' | 'scan-worker' | 'scan-thread-worker',
): URL | null {
  const here = new URL(import.meta.url);
  const candidates = [new URL(`./${name}.cjs`, here), new URL(`./${name}.js`, here)];
  if (here.pathname.endsWith('.ts')) {
    // Sources run by a test runner: the entry must be compiled JavaScript (`npm run build`).
    candidates.length = 0;
    candidates.push(pathToFileURL(path.join(packageRoot(), 'dist', `${name}.js`)));
  }
  return candidates.find((u) => existsSync(fileURLToPath(u))) ?? null;
}
