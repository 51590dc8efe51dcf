// `.gitattributes` decides how git merges memory files. Sent to the memory merge driver
// (`merge=cairn`), concurrent edits merge by key and by section; otherwise git merges them line by
// line, and `merge=union` (what stores made before the driver used) keeps both sides' lines
// without a conflict, so a fact and its correction both stay. A pull request that changes the
// routing changes how every later merge treats a person's notes: the check names it.
import { CairnError } from '../core/errors.js';
import type { Problem, Range } from '../core/types.js';
import { readStoreFile } from '../store/safe-fs.js';
import type { OpContext } from './context.js';
import { unroutedPatterns } from './merge-driver.js';

export const ATTRIBUTES_FILE = '.gitattributes';

const WHAT_IT_DOES: Record<string, string> = {
  union:
    'git keeps both sides of a conflicting edit without saying so, so a fact and its correction both stay',
  unset: 'git never merges it: every concurrent edit is a conflict',
  unspecified: 'git merges it line by line, with conflict markers where the memory merge would combine',
};

/** Where the pattern is written in the store's .gitattributes, else its first line. */
function patternRange(text: string, pattern: string): Range {
  const lines = text.split('\n');
  const line = Math.max(
    0,
    lines.findIndex((l) => l.trim().split(/\s+/)[0] === pattern),
  );
  return { start: { line, character: 0 }, end: { line, character: lines[line]?.length ?? 0 } };
}

/**
 * Findings on `.gitattributes`: each store file pattern not sent to the merge driver (a warning),
 * and an error for one that `fork` sent to it and the checked-out files no longer do (a change
 * that drops the memory merge). Without the git command nothing is said (git is what reads them).
 */
export async function attributesProblems(ctx: OpContext, fork: string | null): Promise<Problem[]> {
  const { root } = ctx.store.repo;
  const { prefix } = ctx.store;
  let now: { pattern: string; merge: string }[];
  let before: Set<string> | null = null;
  try {
    now = await unroutedPatterns(root, prefix);
    if (fork && now.length)
      before = new Set((await unroutedPatterns(root, prefix, fork)).map((u) => u.pattern));
  } catch (e) {
    if (e instanceof CairnError && e.code === 'GIT_NOT_FOUND') return [];
    throw e;
  }
  const text = readStoreFile(ctx.store.root, ATTRIBUTES_FILE)?.toString('utf8') ?? '';
  return now.map(({ pattern, merge }) => {
    const dropped = before !== null && !before.has(pattern);
    const effect = WHAT_IT_DOES[merge] ?? `git merges it with "${merge}", not the memory merge`;
    return {
      code: dropped ? 'store/merge-driver-dropped' : 'store/merge-unrouted',
      severity: dropped ? 'error' : 'warning',
      message:
        (dropped
          ? `this change stops sending ${pattern} to the memory merge driver (merge=${merge}): `
          : `${pattern} is not sent to the memory merge driver (merge=${merge}): `) +
        `${effect}. ${dropped ? 'Merge it only if a person means that; to keep the memory merge, k' : 'K'}eep the line \`${pattern} merge=cairn\` (memory-template/.gitattributes)`,
      range: patternRange(text, pattern),
    } satisfies Problem;
  });
}
