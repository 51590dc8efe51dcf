// What a person rejected before, read from the rejected/<id> tags: a write (`cairn store`) and a
// review (`cairn review`, `cairn accept`) ask the same question, so a rejection holds however the
// text comes back: a higher confidence, another id, or a branch pushed by hand.
import { loneCrAsLf } from '../core/format/index.js';
import { INVISIBLE_CLASS } from '../core/scan/invisible.js';
import { normalizeForHash } from '../core/similarity/normalize.js';
import type { Store } from '../store/store.js';
import { memoryPath, repoPath } from '../store/store.js';
import { rejectedTags, requireMainTip } from './read.js';

export interface PriorRejection {
  tag: string;
  reason: string;
  /** "this id" or "the same text (as <id>)" */
  what: string;
  /** The body is the one a person rejected (under any id): a reason, not a new proposal. */
  sameText: boolean;
  /** Exactly the content a person rejected under this id: dropped rather than proposed again. */
  identical: boolean;
}

/**
 * A rejection that still speaks about `text` as memory `id`: a rejection of the id (while the id is
 * not on main), or of the same body under any id. Confidence or other front matter cannot get
 * round it. The identical rejection wins, then one of the same text, then one of the id.
 */
export async function priorRejection(
  store: Store,
  id: string,
  text: string,
  onMain: boolean,
): Promise<PriorRejection | null> {
  const body = bodyOf(text);
  let found: PriorRejection | null = null;
  const rank = (r: PriorRejection) => (r.identical ? 2 : r.sameText ? 1 : 0);
  let tip: Promise<string> | undefined;
  for (const tag of await rejectedTags(store)) {
    const file = repoPath(store, memoryPath(tag.id));
    const old = await store.repo.readText(tag.target, file);
    const sameId = tag.id === id && !onMain;
    const identical = old !== null && tag.id === id && sameContent(old, text);
    const sameText =
      old !== null &&
      bodyOf(old) === body &&
      !(await keptMainsBody(store, tag.target, file, body, (tip ??= requireMainTip(store))));
    if (!sameId && !sameText && !identical) continue;
    const reason = tagReason(tag.message);
    const what = sameId ? `"${id}"` : `the same text (as "${tag.id}")`;
    const candidate = { tag: tag.name, reason, what, sameText, identical };
    if (!found || rank(candidate) > rank(found)) found = candidate;
    if (identical) break;
  }
  return found;
}

/**
 * True when a rejected proposal left the body main held where it branched (it changed only front
 * matter, as `cairn consolidate`'s retirements do): the person rejected that change, not the text,
 * so the text is not one "a person rejected before".
 */
async function keptMainsBody(
  store: Store,
  proposal: string,
  file: string,
  body: string,
  tip: Promise<string>,
): Promise<boolean> {
  const base = await store.repo.mergeBase(proposal, await tip);
  const before = base === null ? null : await store.repo.readText(base, file);
  return before !== null && bodyOf(before) === body;
}

/** A rejection tag's reason: the paragraph after its subject. */
function tagReason(message: string | null): string {
  return (message ?? '').split('\n\n')[1]?.trim() ?? '';
}

/**
 * Rejected proposals a candidate carries under its own commit: it was built on one (an agent's
 * update in a clone that had fetched the proposal but not yet its rejection), so accepting it
 * would bring the rejected change onto main with the new one. Tags whose commit main already holds
 * are not counted; the tag on the candidate's tip itself (a stale copy) is refuseRejected's.
 */
export async function rejectedWithin(
  store: Store,
  candidateTip: string,
  mainTip: string,
): Promise<{ tag: string; id: string; reason: string }[]> {
  const out: { tag: string; id: string; reason: string }[] = [];
  for (const tag of await rejectedTags(store)) {
    if (tag.target === candidateTip || !(await store.repo.isAncestor(tag.target, candidateTip))) continue;
    if (await store.repo.isAncestor(tag.target, mainTip)) continue;
    out.push({ tag: tag.name, id: tag.id, reason: tagReason(tag.message) });
  }
  return out;
}

/** Two texts of one memory that say the same: everything but the dates and trailing blanks. */
export function sameContent(a: string, b: string): boolean {
  // Dates differ between two writes of the same summary; everything else (front matter included:
  // tags, triples, confidence) must match for a write to be a no-op.
  const strip = (t: string) =>
    t
      .replace(/^(created|updated):.*$/gm, '')
      .replace(/[ \t]+$/gm, '')
      .trim();
  return strip(a) === strip(b);
}

/**
 * The body (after front matter) as duplicate detection reads it: what a proposal says, whatever its
 * case, markdown emphasis, Unicode compatibility forms, whitespace or invisible characters. Before
 * this only whitespace was folded, so a rejected text sent again in other case (or with `**` or a
 * zero-width space in it) under a new id was a new text, and went to main without review.
 */
function bodyOf(file: string): string {
  const text = loneCrAsLf(file);
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n/.exec(text);
  return normalizeForHash((m ? text.slice(m[0].length) : text).replace(INVISIBLE, ''));
}

const INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, 'gu');
