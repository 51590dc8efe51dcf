// Files the scanner found clean, by git blob id, persisted under .cairn/cache/: a `cairn search`
// returns the same few files again and again, and scanning each one (named rules and the learned
// detector) cost a fifth of a warm search. A blob never changes, so a verdict stays true for as long
// as the scanner does: the file's first line names the scanner (the build of the code, the weights,
// the threshold), and any other scanner starts afresh. Only "clean" is remembered: a flagged file
// is scanned every time by a new process, so the file can skip work but never hide a finding. A
// damaged file is dropped and rewritten; without a build id (sources, tsc's output) nothing is cached.
// An id in the file skips a scan, so the file is sealed with the user's key (store/cairn-dir.ts):
// one that anything else wrote (an agent that can write .cairn/) is not read, and is rebuilt.
// A long-lived process (the MCP server's knowledge_graph, which looks at every memory with facts on
// each call) also keeps the findings of flagged blobs, in memory only, under the same scanner key:
// the verdict before any allowance, so allowances are applied afresh by the caller every time.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readFileSync } from 'node:fs';
import { buildId } from '../build-id.js';
import { openCairnDir, type CairnDir } from '../store/cairn-dir.js';
import { injectionDetectorFingerprint } from '../store/injection-model-file.js';
import type { ScanConfig } from '../core/config.js';
import type { InjectionDetector, ScanFinding } from '../core/scan/index.js';
import type { OpContext } from './context.js';

const FILE = 'cache/clean-scans.txt';
const FORMAT = 'cairn-clean-scans-1';
/** Past this many blobs the file starts afresh (bounded: about 4 MB). */
const MAX_ENTRIES = 100_000;
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** Flagged blobs kept in memory per process (flagged memories are few; bounded all the same). */
const MAX_FLAGGED = 10_000;

/** This process's findings of flagged blobs, by `scanner header + blob id`. */
const flaggedScans = new Map<string, readonly ScanFinding[]>();

export class CleanScans {
  private added = false;

  private constructor(
    private readonly dir: CairnDir | null,
    private readonly header: string,
    private readonly clean: Set<string>,
    /**
     * The scan settings this cache's verdicts are for. cairn.yaml is read again when it changes
     * (store/store.ts): a verdict is recorded only for a scan made with these settings (scanner),
     * never for one made with those of a moment later.
     */
    readonly scan: ScanConfig,
  ) {}

  /** The store's cache for the scanner this process runs (empty when missing, damaged or another scanner's). */
  static async open(ctx: OpContext): Promise<CleanScans> {
    const scan = ctx.store.config.scan;
    const code = buildId();
    if (!code) return new CleanScans(null, '', new Set(), scan);
    const scanner = createHash('sha256')
      .update(`${code}\n${injectionDetectorFingerprint({ scan })}`)
      .digest('hex');
    const header = `${FORMAT} ${scanner}`;
    const dir = await openCairnDir(ctx.store.root, ctx.store.repo);
    return new CleanScans(dir, header, readEntries(dir, header), scan);
  }

  /** Names the scanner (code, weights, threshold): verdicts of one scanner say nothing of another's. */
  get scanner(): string {
    return this.header;
  }

  /**
   * The detector of this cache's scanner: what a scan whose verdict is added here must run. Loaded
   * when first needed: an answer whose files were all scanned clean before never loads it.
   */
  async detector(): Promise<InjectionDetector | undefined> {
    const { injectionDetector } = await import('../store/injection-model.js');
    return injectionDetector({ scan: this.scan });
  }

  /** True when this blob was scanned clean by this scanner. */
  isClean(oid: string): boolean {
    return this.clean.has(oid);
  }

  /** The blob ids this scanner found clean. */
  cleanIds(): string[] {
    return [...this.clean];
  }

  /** Remembers a blob this scanner found clean (nothing flagged, before any allowance). */
  addClean(oid: string): void {
    if (!this.dir || this.clean.has(oid) || !OID.test(oid)) return;
    if (this.clean.size >= MAX_ENTRIES) this.clean.clear();
    this.clean.add(oid);
    this.added = true;
  }

  /** The flagged findings this scanner found in this blob earlier in this process, if any. */
  flagged(oid: string): readonly ScanFinding[] | undefined {
    return this.dir ? flaggedScans.get(`${this.header}\0${oid}`) : undefined;
  }

  /** Remembers, in this process only, the flagged findings of a blob (before any allowance). */
  addFlagged(oid: string, findings: readonly ScanFinding[]): void {
    if (!this.dir || !OID.test(oid)) return;
    if (flaggedScans.size >= MAX_FLAGGED) flaggedScans.clear();
    flaggedScans.set(`${this.header}\0${oid}`, findings);
  }

  /** Writes the file when something was added (atomically; skipped when .cairn cannot be used). */
  save(): void {
    if (!this.dir || !this.added) return;
    if (this.dir.writeSealed(FILE, `${this.header}\n${[...this.clean].join('\n')}\n`))
      keepWritten(this.dir, this.header, this.clean);
    this.added = false;
  }
}

/**
 * The set read last from each store's file, with the file's identity: a long-lived process (the
 * resident search, a server's search host) opens the cache for every answer, and reading ~10,000
 * ids each time was a third of a warm answer. Additions go into the kept set too: a clean verdict
 * stays true for its scanner, whether or not the file is written.
 */
const kept = new Map<string, { id: string; header: string; clean: Set<string> }>();

/**
 * The file just written holds `clean`: remembered under its new identity, so the next answer of a
 * long-lived process does not read back what it wrote (each answer that scanned a file did so).
 * Another process's write in between only costs its additions: every id kept is a true verdict.
 */
function keepWritten(dir: CairnDir, header: string, clean: Set<string>): void {
  const fd = dir.open(FILE);
  if (fd === null) return;
  try {
    kept.set(dir.root, { id: identityOf(fd), header, clean });
  } catch {
    // unreadable: the next open reads it, or starts afresh
  } finally {
    closeSync(fd);
  }
}

/** The open file's identity: what `kept` is valid for (a write, ours or another's, changes it). */
const identityOf = (fd: number): string => {
  const st = fstatSync(fd);
  return `${st.ino}:${st.size}:${st.mtimeMs}`;
};

function readEntries(dir: CairnDir, header: string): Set<string> {
  const fd = dir.open(FILE);
  if (fd === null) return new Set();
  try {
    const id = identityOf(fd);
    const memo = kept.get(dir.root);
    if (memo?.id === id && memo.header === header) return memo.clean;
    const body = dir.unseal(FILE, readFileSync(fd));
    const clean = body ? parseEntries(body.toString('utf8'), header) : new Set<string>();
    kept.set(dir.root, { id, header, clean });
    return clean;
  } catch {
    return new Set();
  } finally {
    closeSync(fd);
  }
}

function parseEntries(text: string, header: string): Set<string> {
  if (!text.startsWith(`${header}\n`) || !text.endsWith('\n')) return new Set();
  const oids = text.slice(header.length + 1, -1).split('\n');
  if (oids.length === 1 && oids[0] === '') return new Set();
  // Anything but blob ids, one a line: damaged (a torn or hand-edited file), so start afresh.
  return oids.every((o) => OID.test(o)) ? new Set(oids) : new Set();
}
