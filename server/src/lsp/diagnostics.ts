// Push diagnostics: no editor we target pulls them. A change to a quiet document is checked at once;
// changes that follow each other closely wait a short pause, so a burst of keystrokes costs one rule
// run; a newer change cancels the pass still running for the older text (the rules stop between
// rules, see ops/workspace/problems.ts).
//
// The scanner was most of an edit's cost, and an edit changes one paragraph: a document typed in is
// scanned by blocks (core/scan/block-scan.ts), each block's findings remembered, when its last whole
// scan found the same as its blocks. Once typing pauses it is scanned whole again and republished if
// that differs, so something the edit made span an empty line (an opened HTML comment) shows up
// then, and the document is scanned whole on each edit until its blocks agree again.
//
// The duplicate checks compare the whole text with every memory (a MinHash query, a hash, an
// embedding), and what they find changes with a paragraph, not a keystroke: while a document is
// typed in they wait for the same pause, and its last findings stay shown meanwhile.
import { CancellationTokenSource, type CancellationToken, type Diagnostic } from 'vscode-languageserver/node';
import { isCancelled } from '../core/cancel.js';
import { BlockScans, sameFindings } from '../core/scan/block-scan.js';
import { scanText, type InjectionDetector, type ScanFinding } from '../core/scan/index.js';
import { byPosition, type RuleName } from '../core/rules/index.js';
import type { Problem } from '../core/types.js';
import { fileProblems, SCAN_ELSEWHERE_CHARS } from '../ops/workspace/index.js';
import type { ServerContext } from './context.js';
import { rangeClamp, toDiagnostic } from './convert.js';
import type { StoreHost } from './host.js';
import { tidyAfterEdit } from './memory.js';
import { isStoreFile } from './paths.js';

/**
 * Extra pause before checking a large document: the rules read the whole text (about a second for
 * 10 MB), so typing in a huge file costs one run per pause rather than one per keystroke.
 */
function pauseForSize(chars: number): number {
  return Math.min(1500, Math.floor(chars / 8192));
}

/**
 * How long after a store starts indexing a publish waits for it, rather than go out with the
 * file-local rules only: a small store is indexed by then (one publish, not two); a large one is
 * not, and its edits are checked at once, partially, meanwhile.
 */
const PARTIAL_AFTER_MS = 750;

/** How long typing pauses before a document scanned by blocks is scanned whole again. */
export const WHOLE_SCAN_AFTER_MS = 150;

/** Why a document is checked: it was typed in, typing paused after that, or anything else. */
type Pass = 'typed' | 'paused' | 'whole';

/** The rules a typed pass runs: all but the duplicate checks, which wait for the pause. */
export const TYPED_RULES: RuleName[] = ['schema', 'references', 'scanner', 'conflicts'];

/** A document's duplicate findings from its last pass that looked: the rule's, and the model's. */
interface Duplicates {
  rule: Problem[];
  semantic: Problem[];
}

const isDuplicate = (p: Problem) => p.code.startsWith('duplicate/');

/** How many of a document's last publishes a quick fix can name the version of. */
const KEEP_PUBLISHES = 8;

/** A diagnostic as the client sends it back: its place, code and message. */
const diagnosticKey = ({ range: { start, end }, code, message }: Diagnostic) =>
  JSON.stringify([start.line, start.character, end.line, end.character, String(code ?? ''), message]);

/** What a publish found, in a form two passes compare by (versions apart, problems in order). */
const foundKey = (version: number, problems: Problem[]) => `${version}\0${JSON.stringify(problems)}`;

export class DiagnosticsPublisher {
  /** What is pending for each document: a call that cancels it. */
  private readonly timers = new Map<string, () => void>();
  /** The pass running for each document, cancelled when a newer change arrives. */
  private readonly running = new Map<string, CancellationTokenSource>();
  /** When each document's last pass started: a change soon after one is part of a burst. */
  private readonly lastPass = new Map<string, number>();
  /** Rule passes cancelled by a newer change (the tests and the log read it). */
  cancelledPasses = 0;
  /** Long documents the log has said where they are scanned. */
  private readonly longNoted = new Set<string>();
  /** Findings of the blocks of open documents, by block text. */
  private readonly blocks = new BlockScans();
  /** Documents whose last whole scan found what their blocks found: typing in them reads blocks. */
  private readonly byBlocks = new Set<string>();
  /** The whole scan due once typing pauses, for each document last scanned by blocks. */
  private readonly wholeLater = new Map<string, NodeJS.Timeout>();
  /** What the last pass found in each document, with its version (see 'paused'). */
  private readonly lastFound = new Map<string, string>();
  /** Each open document's duplicate findings, shown while it is typed in (see the top of the file). */
  private readonly duplicates = new Map<string, Duplicates>();
  /** Each document's last publishes: the version computed on, and the diagnostics (see diagnosedVersion). */
  private readonly published = new Map<string, { version: number; keys: Set<string> }[]>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly delayMs = 8,
  ) {}

  /**
   * Checks `uri` at once when nothing is pending or running for it and its last pass started more
   * than the pause ago, else after the pause (plus `laterMs`); a newer call replaces this one.
   * `pass`: 'typed' (the document was edited: its scan may read blocks, see the top of the file),
   * 'paused' (the whole scan once typing pauses: sent only when it differs) or 'whole'.
   */
  schedule(uri: string, { laterMs = 0, pass = 'whole' }: { laterMs?: number; pass?: Pass } = {}): void {
    const quiet =
      !this.timers.has(uri) &&
      !this.running.has(uri) &&
      performance.now() - (this.lastPass.get(uri) ?? -Infinity) >= this.delayMs;
    this.cancel(uri);
    const size = this.ctx.documents.get(uri)?.getText().length ?? 0;
    const run = () => {
      this.timers.delete(uri);
      this.lastPass.set(uri, performance.now());
      const source = new CancellationTokenSource();
      this.running.set(uri, source);
      this.publish(uri, source, pass)
        .catch((e) => {
          if (!isCancelled(e)) this.ctx.log(`cairn: diagnostics failed for ${uri}: ${(e as Error).stack}`);
        })
        .finally(() => {
          if (this.running.get(uri) === source) this.running.delete(uri);
          source.dispose();
        });
    };
    const delay = (quiet ? 0 : this.delayMs) + pauseForSize(size) + laterMs;
    // A timer waits at least a millisecond; a quiet document's edit is checked on the next turn.
    if (delay === 0) {
      const immediate = setImmediate(run);
      this.timers.set(uri, () => clearImmediate(immediate));
    } else {
      const timer = setTimeout(run, delay);
      this.timers.set(uri, () => clearTimeout(timer));
    }
  }

  /** Stops what is pending or running for `uri`: its text changed or it closed. */
  private cancel(uri: string): void {
    this.timers.get(uri)?.();
    this.timers.delete(uri);
    clearTimeout(this.wholeLater.get(uri));
    this.wholeLater.delete(uri);
    const running = this.running.get(uri);
    if (running) {
      running.cancel();
      this.running.delete(uri);
      this.cancelledPasses++;
    }
  }

  /**
   * While a large store is still being indexed, publishes what needs no other memory (schema,
   * injection, secrets) first; the session republishes every open document with all rules when
   * indexing ends.
   */
  private async publish(uri: string, source: CancellationTokenSource, pass: Pass): Promise<void> {
    const token = source.token;
    const host = this.ctx.hostFor(uri);
    const rel = host?.relOf(uri);
    if (!host || !rel || !isStoreFile(rel)) {
      if (this.ctx.documents.get(uri)) await this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
      return;
    }
    // Small stores index in well under a second: wait for it rather than publish twice.
    const wait = PARTIAL_AFTER_MS - (performance.now() - host.startedAt);
    if (!host.indexed && wait > 0)
      await Promise.race([host.ready, new Promise((resolve) => setTimeout(resolve, wait))]);
    const doc = this.ctx.documents.get(uri);
    if (!doc || token.isCancellationRequested) return;
    const version = doc.version;
    const text = doc.getText();
    host.clientUris.set(rel, uri);
    host.ws.put(rel, text);
    if (text.length >= SCAN_ELSEWHERE_CHARS && !this.longNoted.has(uri)) {
      this.longNoted.add(uri);
      const where = this.ctx.scanElsewhere
        ? 'in a worker thread'
        : 'in this thread (no scanner thread is built)';
      const size = (text.length / 1e6).toFixed(1);
      this.ctx.log(`cairn: ${rel} is long (${size} M characters): it is scanned ${where}`);
    }
    const partial = !host.indexed;
    const byBlocks = pass === 'typed' && this.byBlocks.has(uri) && text.length < SCAN_ELSEWHERE_CHARS;
    const carried = pass === 'typed' && !partial ? this.duplicates.get(uri) : undefined;
    let whole: { findings: ScanFinding[]; detector?: InjectionDetector } | undefined;
    const checked = await fileProblems(host.ws, rel, {
      token,
      rules: partial ? ['schema', 'scanner'] : carried ? TYPED_RULES : undefined,
      scanElsewhere: this.ctx.scanElsewhere,
      scan: (t, detector) =>
        (byBlocks && this.blocks.scan(t, detector)) ||
        (whole = { findings: scanText(t, { detector }), detector }).findings,
    });
    if (!checked || token.isCancellationRequested) return;
    const problems = carried ? [...checked, ...carried.rule].sort(byPosition) : checked;
    // After typing paused, the whole scan usually finds what the blocks did: nothing is sent then.
    const found = foundKey(version, problems);
    const unchanged = pass === 'paused' && this.lastFound.get(uri) === found;
    this.lastFound.set(uri, found);
    if (!unchanged)
      await this.send(host, uri, version, text, carried ? [...problems, ...carried.semantic] : problems);
    if (whole) {
      const blocks = this.blocks.scan(text, whole.detector);
      if (blocks && sameFindings(whole.findings, blocks)) this.byBlocks.add(uri);
      else this.byBlocks.delete(uri);
    } else if (!byBlocks) this.byBlocks.delete(uri);
    if (byBlocks || carried) this.scanWholeLater(uri);
    if (carried || partial) return;
    const shownSemantic = unchanged ? (this.duplicates.get(uri)?.semantic ?? []) : [];
    const extra = await this.semanticDuplicates(host, rel, token);
    if (token.isCancellationRequested) return;
    this.duplicates.set(uri, { rule: problems.filter(isDuplicate), semantic: extra });
    if (JSON.stringify(extra) === JSON.stringify(shownSemantic)) return;
    await this.send(host, uri, version, text, [...problems, ...extra]);
  }

  /**
   * Semantic neighbours need an embedding of the text: they follow the rules' publish, in a second
   * one when there is something to change.
   */
  private async semanticDuplicates(host: StoreHost, rel: string, token: CancellationToken) {
    const semantic = host.semantic;
    const parsed = host.ws.doc(rel);
    if (!semantic || !parsed || host.ws.files.get(rel)?.link) return [];
    const neighbours = await semantic.neighbours(parsed);
    const found = await fileProblems(host.ws, rel, {
      token,
      rules: ['duplicates'],
      view: { semanticNeighbours: () => neighbours },
    });
    return (found ?? []).filter((p) => p.code === 'duplicate/semantic');
  }

  /** Scans `uri` whole once typing has paused (a newer edit pushes it back). */
  private scanWholeLater(uri: string): void {
    clearTimeout(this.wholeLater.get(uri));
    const timer = setTimeout(() => {
      this.wholeLater.delete(uri);
      this.schedule(uri, { pass: 'paused' });
    }, WHOLE_SCAN_AFTER_MS);
    this.wholeLater.set(uri, timer);
  }

  private async send(host: StoreHost, uri: string, version: number, text: string, problems: Problem[]) {
    const relatedSupport = !!this.ctx.caps.textDocument?.publishDiagnostics?.relatedInformation;
    const clamp = rangeClamp(text);
    const diagnostics = problems.map((p) =>
      toDiagnostic({ ...p, range: clamp(p.range) }, { uriOf: (r) => host.uriOf(r), relatedSupport }),
    );
    // A newer version may have arrived while we computed: its own publish follows.
    if (this.ctx.documents.get(uri)?.version !== version) return;
    const recent = [
      { version, keys: new Set(diagnostics.map(diagnosticKey)) },
      ...(this.published.get(uri) ?? []),
    ];
    this.published.set(uri, recent.slice(0, KEEP_PUBLISHES));
    await this.ctx.connection.sendDiagnostics({ uri, version, diagnostics });
    tidyAfterEdit();
  }

  /**
   * The version of `uri` a diagnostic the client sends back (with a code action request) was
   * computed on: that of the newest of the last publishes that held it, or undefined.
   */
  diagnosedVersion(uri: string, d: Diagnostic): number | undefined {
    const key = diagnosticKey(d);
    return this.published.get(uri)?.find((p) => p.keys.has(key))?.version;
  }

  clear(uri: string): void {
    this.cancel(uri);
    this.lastPass.delete(uri);
    this.longNoted.delete(uri);
    this.byBlocks.delete(uri);
    this.lastFound.delete(uri);
    this.duplicates.delete(uri);
    this.published.delete(uri);
    void this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
  }
}
