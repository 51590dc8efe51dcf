// Push diagnostics: no editor we target pulls them. Each change schedules one publish per document
// after a short pause, so a burst of keystrokes costs one rule run.
import { checkMemory, symlinkProblem, type WorkspaceModel, type WorkspaceView } from '../core/rules/index.js';
import type { ServerContext } from './context.js';
import { toDiagnostic } from './convert.js';

function viewOf(model: WorkspaceModel): WorkspaceView {
  return {
    memories: model.memories,
    byHash: model.byHash,
    facts: model.facts,
    nearDuplicates: model.nearDuplicates,
  };
}

/**
 * Extra pause before checking a large document: the rules read the whole text (about a second for
 * 10 MB), so typing in a huge file costs one run per pause rather than one per keystroke.
 */
function pauseForSize(chars: number): number {
  return Math.min(1500, Math.floor(chars / 8192));
}

/** How long a first publish waits for indexing before it goes out with the file-local rules only. */
const PARTIAL_AFTER_MS = 750;

export class DiagnosticsPublisher {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly delayMs = 8,
  ) {}

  schedule(uri: string): void {
    const pending = this.timers.get(uri);
    if (pending) clearTimeout(pending);
    const size = this.ctx.documents.get(uri)?.getText().length ?? 0;
    this.timers.set(
      uri,
      setTimeout(
        () => {
          this.timers.delete(uri);
          this.publish(uri).catch((e) =>
            this.ctx.log(`cairn: diagnostics failed for ${uri}: ${(e as Error).stack}`),
          );
        },
        this.delayMs + pauseForSize(size),
      ),
    );
  }

  /**
   * While a large store is still being indexed, publishes what needs no other memory (schema,
   * injection, secrets) first; the session republishes every open document with all rules when
   * indexing ends.
   */
  async publish(uri: string): Promise<void> {
    if (!this.ctx.workspace) await this.ctx.ready;
    // Small stores index in well under a second: wait for it rather than publish twice.
    if (!this.ctx.indexed)
      await Promise.race([this.ctx.ready, new Promise((resolve) => setTimeout(resolve, PARTIAL_AFTER_MS))]);
    const doc = this.ctx.documents.get(uri);
    if (!doc) return;
    const entry = this.ctx.fileFor(uri);
    const ws = this.ctx.workspace;
    if (!entry || !ws) {
      await this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
      return;
    }
    const relatedSupport = !!this.ctx.caps.textDocument?.publishDiagnostics?.relatedInformation;
    // A linked path holds only its target's name: the one thing to say is that it is a link.
    const problems = entry.link
      ? [symlinkProblem(entry.link.at, entry.link.target)]
      : checkMemory(entry.doc, ws.model, {
          rules: this.ctx.indexed ? undefined : ['schema', 'scanner'],
          detector: ws.detector(),
        });
    const diagnostics = problems.map((p) =>
      toDiagnostic(p, { uriOf: (rel) => ws.uriOf(rel), relatedSupport }),
    );
    // A newer version may have arrived while we computed: its own publish follows.
    if (this.ctx.documents.get(uri)?.version !== doc.version) return;
    await this.ctx.connection.sendDiagnostics({ uri, version: doc.version, diagnostics });
    // Semantic neighbours need an embedding of the edited text: they follow in a second publish,
    // only when there is something to add.
    const semantic = this.ctx.semantic;
    if (!semantic || !this.ctx.indexed || entry.link) return;
    const neighbours = await semantic.neighbours(entry.doc);
    const view: WorkspaceView = { ...viewOf(ws.model), semanticNeighbours: () => neighbours };
    const extra = checkMemory(entry.doc, view, { rules: ['duplicates'] }).filter(
      (p) => p.code === 'duplicate/semantic',
    );
    if (!extra.length || this.ctx.documents.get(uri)?.version !== doc.version) return;
    const more = extra.map((p) => toDiagnostic(p, { uriOf: (rel) => ws.uriOf(rel), relatedSupport }));
    await this.ctx.connection.sendDiagnostics({
      uri,
      version: doc.version,
      diagnostics: [...diagnostics, ...more],
    });
  }

  clear(uri: string): void {
    const pending = this.timers.get(uri);
    if (pending) clearTimeout(pending);
    this.timers.delete(uri);
    void this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
  }
}
