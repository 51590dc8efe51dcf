// The language server's one door into the lead's store and governance operations. Loaded lazily so
// that a store without git (or a half-built adapter) still gets every editor feature that needs only
// the files; failures come back as null and are logged by the caller.
import type { MemoryStatus } from '../core/types.js';
import type { OpContext, OpenStore } from '../ops/context.js';
import type { MemoryHistory } from '../ops/history.js';
import type { SearchService } from '../ops/search.js';

export interface Governance {
  ctx: OpContext;
  /** The store's search service (its index lives in a child process). */
  search: SearchService;
  /** Stops the store's search service and forgets it (the host's store is no longer served). */
  close(): Promise<void>;
  /** Per-memory history (last commit, feedback, review) from main's log. */
  histories(): Promise<Map<string, MemoryHistory>>;
  trust(input: TrustInput): number;
}

export interface TrustInput {
  id: string;
  path: string;
  status: MemoryStatus;
  memory: import('../core/types.js').ParsedMemory;
  history: MemoryHistory;
  inboundRefs: number;
}

/**
 * Opens the git-backed store at `root` through the composition root's opener (store, clock,
 * author and search service), or returns the reason it could not.
 */
export async function openGovernance(root: string, open: OpenStore): Promise<Governance | string> {
  try {
    const [read, history, query] = await Promise.all([
      import('../ops/read.js'),
      import('../ops/history.js'),
      import('../ops/query.js'),
    ]);
    const services = await open(root);
    const { ctx, search } = services;
    const { store } = ctx;
    return {
      ctx,
      search,
      close: () => services.close(),
      async histories() {
        const tip = await read.mainTip(store);
        return tip ? history.memoryHistories(store, tip) : new Map();
      },
      trust(input) {
        const record = { ...input, commit: '' };
        return query.trustOf(record, input.history, input.inboundRefs, new Date());
      },
    };
  } catch (e) {
    return (e as Error).message;
  }
}
