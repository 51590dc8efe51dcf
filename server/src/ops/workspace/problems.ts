// The rules over the workspace model, for one file (the language server's diagnostics) or many
// (`cairn check`): the same checkMemory over the same model, so both report the same findings. A
// group finding (copies of one text, facts that contradict each other) is on every member in the
// editor and once, on its first file by path, in `cairn check`.
import { throwIfCancelled, type CancelToken } from '../../core/cancel.js';
import type { ScanConfig } from '../../core/config.js';
import {
  byPosition,
  checkMemory,
  groupFilter,
  RULE_NAMES,
  scanProblems,
  symlinkProblem,
  type CheckOptions,
  type FileProblems,
  type RuleName,
  type WorkspaceView,
} from '../../core/rules/index.js';
import type { ScanFinding } from '../../core/scan/index.js';
import type { ParsedMemory, Problem } from '../../core/types.js';
import type { StoreWorkspace } from './workspace.js';

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));
/** A pass for one file gives other work a turn after this long (most passes take a millisecond or two). */
const FILE_SLICE_MS = 4;

/**
 * Scans a text in another thread with cairn.yaml's scan settings (the language server's
 * scan-thread.ts); rejects when it cannot, and the scan runs here instead.
 */
export type ScanElsewhere = (
  text: string,
  scan: ScanConfig | undefined,
  token?: CancelToken,
) => Promise<ScanFinding[]>;

/**
 * A file this long or longer is scanned elsewhere when the caller can: the scanner reads about
 * 10 MB a second, so this is about 15 ms of this thread; a pasted log of 20 MB took two seconds.
 */
export const SCAN_ELSEWHERE_CHARS = 128 * 1024;

export interface ProblemOptions {
  /** Only these rules (default: all). */
  rules?: readonly RuleName[];
  /** Stops between rules with CANCELLED once cancelled (a newer edit, the client's $/cancelRequest). */
  token?: CancelToken;
  /** Extra view fields, e.g. semantic neighbours the language server computed. */
  view?: Partial<WorkspaceView>;
  /** Where the scanner rule of a long file runs (default: here). */
  scanElsewhere?: ScanElsewhere;
  /** How the scanner rule reads a text it scans here (default: whole; see CheckOptions.scan). */
  scan?: CheckOptions['scan'];
}

/**
 * The view the rules read: the workspace's model (its methods bound), plus `extra`. The hash and
 * near indexes are read through the model's getters when a rule reads them: an edit's deferred
 * upsert is settled then, and only then (core/rules/model.ts).
 */
export function viewOf(ws: StoreWorkspace, extra: Partial<WorkspaceView> = {}): WorkspaceView {
  const m = ws.rules;
  return {
    memories: m.memories,
    get byHash() {
      return m.byHash;
    },
    facts: m.facts,
    get nearDuplicates() {
      return m.nearDuplicates;
    },
    idClaims: (id) => m.idClaims(id),
    ...extra,
  };
}

/**
 * Every problem in one store file, one rule at a time with a cancellation check in between (and a
 * yield once the pass has run a few milliseconds), so a newer edit or a cancelled request stops the
 * work it no longer needs. Null when the workspace has no such file. A linked path has one finding:
 * that it is a link.
 */
export async function fileProblems(
  ws: StoreWorkspace,
  rel: string,
  opts: ProblemOptions = {},
): Promise<Problem[] | null> {
  const file = ws.files.get(rel);
  if (file?.link) return [symlinkProblem(file.link.at, file.link.target)];
  const doc = ws.doc(rel);
  if (!doc) return null;
  const view = viewOf(ws, opts.view);
  const rules = opts.rules ?? RULE_NAMES;
  // Once a pass: the detector's threshold comes from cairn.yaml, looked at (a stat) on each read.
  const detector = ws.detector();
  const scanned =
    opts.scanElsewhere && rules.includes('scanner') && doc.text.length >= SCAN_ELSEWHERE_CHARS
      ? opts.scanElsewhere(doc.text, ws.store?.config.scan, opts.token).then(scanProblems, () => null)
      : null;
  const out: Problem[] = [];
  let slice = performance.now();
  for (const rule of rules) {
    throwIfCancelled(opts.token);
    if (rule === 'scanner' && scanned) continue;
    for (const p of checkMemory(doc, view, { rules: [rule], detector, scan: opts.scan })) out.push(p);
    if (opts.token && performance.now() - slice >= FILE_SLICE_MS) {
      await yieldNow();
      slice = performance.now();
    }
  }
  if (scanned) {
    // Cancelled or failed there: a cancelled pass stops below; a failed scan runs here after all.
    const elsewhere = await scanned;
    throwIfCancelled(opts.token);
    const found = elsewhere ?? checkMemory(doc, view, { rules: ['scanner'], detector });
    for (const p of found) out.push(p);
  }
  throwIfCancelled(opts.token);
  return out.sort(byPosition);
}

/** Problems of a parsed file with every rule, synchronously (for a batch that yields itself). */
function docProblems(doc: ParsedMemory, view: WorkspaceView, opts: CheckOptions): Problem[] {
  return checkMemory(doc, view, opts);
}

/**
 * Checks `rels` (sorted by path; links skipped, `cairn check` reports them from the walk) like
 * checkWorkspace: a group finding once, by its first file. Yields every 32 files.
 */
export async function checkFiles(
  ws: StoreWorkspace,
  rels: readonly string[],
  opts: { token?: CancelToken; rules?: readonly RuleName[] } = {},
): Promise<FileProblems[]> {
  const view = viewOf(ws);
  const detector = ws.detector();
  const firstOfGroup = groupFilter();
  const out: FileProblems[] = [];
  const sorted = [...rels].sort((a, b) => a.localeCompare(b));
  for (const [i, rel] of sorted.entries()) {
    if (i % 32 === 31) {
      await yieldNow();
      throwIfCancelled(opts.token);
    }
    if (ws.files.get(rel)?.link) continue;
    const doc = ws.doc(rel);
    if (!doc) continue;
    const problems = docProblems(doc, view, { rules: opts.rules, detector }).filter(firstOfGroup);
    if (problems.length) out.push({ path: rel, problems });
  }
  return out;
}
