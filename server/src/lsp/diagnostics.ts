// Push diagnostics: no editor we target pulls them. Each change schedules one publish per document
// after a short pause, so a burst of keystrokes costs one rule run.
import { checkMemory } from '../core/rules/index.js';
import type { ServerContext } from './context.js';
import { toDiagnostic } from './convert.js';

export class DiagnosticsPublisher {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly delayMs = 8,
  ) {}

  schedule(uri: string): void {
    const pending = this.timers.get(uri);
    if (pending) clearTimeout(pending);
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        this.publish(uri).catch((e) =>
          this.ctx.log(`cairn: diagnostics failed for ${uri}: ${(e as Error).stack}`),
        );
      }, this.delayMs),
    );
  }

  /**
   * While the store is still being indexed, publishes what needs no other memory (schema, injection,
   * secrets) at once; the session republishes every open document with all rules when indexing ends.
   */
  async publish(uri: string): Promise<void> {
    if (!this.ctx.workspace) await this.ctx.ready;
    const doc = this.ctx.documents.get(uri);
    if (!doc) return;
    const entry = this.ctx.fileFor(uri);
    const ws = this.ctx.workspace;
    if (!entry || !ws) {
      await this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
      return;
    }
    const relatedSupport = !!this.ctx.caps.textDocument?.publishDiagnostics?.relatedInformation;
    const problems = checkMemory(entry.doc, ws.model, this.ctx.indexed ? {} : { rules: ['schema', 'scanner'] });
    const diagnostics = problems.map((p) =>
      toDiagnostic(p, { uriOf: (rel) => ws.uriOf(rel), relatedSupport }),
    );
    // A newer version may have arrived while we computed: its own publish follows.
    if (this.ctx.documents.get(uri)?.version !== doc.version) return;
    await this.ctx.connection.sendDiagnostics({ uri, version: doc.version, diagnostics });
  }

  clear(uri: string): void {
    const pending = this.timers.get(uri);
    if (pending) clearTimeout(pending);
    this.timers.delete(uri);
    void this.ctx.connection.sendDiagnostics({ uri, diagnostics: [] });
  }
}
