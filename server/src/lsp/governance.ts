// The language server's one door into the lead's store and governance operations. Loaded lazily so
// that a store without git (or a half-built adapter) still gets every editor feature that needs only
// the files; failures come back as null and are logged by the caller.
import type { MemoryStatus } from '../core/types.js';
import type { OpContext } from '../ops/context.js';
import type { MemoryHistory } from '../ops/history.js';

export interface Governance {
  ctx: OpContext;
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

/** Opens the git-backed store at `root`, or returns the reason it could not. */
export async function openGovernance(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Governance | string> {
  try {
    const [{ openStore }, read, history, query, identity] = await Promise.all([
      import('../store/store.js'),
      import('../ops/read.js'),
      import('../ops/history.js'),
      import('../ops/query.js'),
      import('../cli/identity.js'),
    ]);
    const store = await openStore({ store: root, env: {} });
    const author = await identity.resolveAuthor(env, store.repo.root);
    const ctx: OpContext = { store, now: () => new Date(), author };
    return {
      ctx,
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
