// The search index build as the editor sees it: a `$/progress` report ("Cairn: building the search
// index", files then chunks) while the store's search process indexes, for clients that support it.
import type { WorkDoneProgressServerReporter } from 'vscode-languageserver/node';
import type { IndexProgress, SearchService } from '../ops/search.js';
import type { ServerContext } from './context.js';

/** Follows the service's progress; one report per build, created when the first progress arrives. */
export function reportSearchProgress(ctx: ServerContext, search: SearchService): () => void {
  let reporter: Promise<WorkDoneProgressServerReporter | null> | null = null;
  let latest: IndexProgress | null = null;
  const message = (p: IndexProgress) =>
    p.phase === 'embedding' ? `${p.done}/${p.total} chunks embedded` : `${p.done}/${p.total} files`;
  return search.onProgress((p) => {
    latest = p;
    if (p.phase === 'done') {
      const finished = reporter;
      reporter = null;
      void finished?.then((r) => r?.done()).catch(() => undefined);
      return;
    }
    // Small refreshes (a commit) come and go without a report.
    if (!reporter && (p.total < 200 || !ctx.caps.window?.workDoneProgress)) return;
    if (!reporter) {
      reporter = ctx.connection.window
        .createWorkDoneProgress()
        .then((r) => {
          const now = latest ?? p;
          r.begin('Cairn: building the search index', percent(now), message(now), false);
          return r;
        })
        .catch(() => null);
      return;
    }
    void reporter.then((r) => r?.report(percent(p), message(p))).catch(() => undefined);
  });
}

function percent(p: IndexProgress): number {
  return Math.round((p.done / Math.max(p.total, 1)) * 100);
}
