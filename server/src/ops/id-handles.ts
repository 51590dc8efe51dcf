// The ids behind the handles agents read instead of ids that read as instructions (core/withheld-id):
// a handle an agent passes to a tool, or a person pastes into a `cairn` command, is the id again.
import { CairnError } from '../core/errors.js';
import { handlesIn, idHandle, resolveHandles } from '../core/withheld-id.js';
import { repoPath } from '../store/store.js';
import type { OpContext } from './context.js';
import { candidateRefs, mainTip, rejectedTags } from './read.js';

/**
 * The ids of `handles` among the store's: main's memories, proposals and rejections, and `known`, the
 * handles this process gave out.
 */
export async function idsOfHandles(
  ctx: OpContext,
  handles: readonly string[],
  known: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // The store is read even when every handle is known: a memory named like one must be found.
  for (const h of handles) if (known.has(h)) out.set(h, known.get(h)!);
  const { store } = ctx;
  const ids = new Set<string>();
  const tip = await mainTip(store);
  if (tip) {
    for (const e of await store.repo.listDir(tip, repoPath(store, 'memories'))) {
      if (e.type === 'blob' && e.name.endsWith('.md')) ids.add(e.name.slice(0, -3));
    }
  }
  for (const c of await candidateRefs(store)) ids.add(c.id).add(c.name);
  for (const t of await rejectedTags(store)) ids.add(t.id);
  const wanted = new Set(handles);
  for (const id of ids) if (wanted.has(idHandle(id))) out.set(idHandle(id), id);
  // A memory named like a handle (by hand: Cairn makes no such id) would be acted on in place of the
  // memory the handle stands for, or the other way round: refused, whichever was meant.
  for (const h of handles)
    if (ids.has(h) && out.has(h) && out.get(h) !== h)
      throw new CairnError(
        'INVALID_ID',
        `${h} is both a memory's id (memories/${h}.md) and the handle agents are shown for another memory ` +
          `whose id reads as an instruction; nothing was done. Rename memories/${h}.md (ids of the shape ` +
          'withheld-id-<12 hex digits> are the handles) and run the command again',
        { id: h },
      );
  return out;
}

/** `text` with every handle it holds replaced by its id (a handle no id has stays). */
export async function withIdsForHandles(
  ctx: OpContext,
  text: string,
  known?: ReadonlyMap<string, string>,
): Promise<string> {
  const handles = handlesIn(text);
  return handles.length ? resolveHandles(text, await idsOfHandles(ctx, handles, known)) : text;
}
