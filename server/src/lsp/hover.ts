// Hover on `[[id]]` (or an id in the front matter): title, status, trust, updated, last commit and
// the first lines, in the client's content format (ALE takes plain text only).
import { MarkupKind, type Hover, type HoverParams } from 'vscode-languageserver/node';
import { memoryContent } from '../core/rules/index.js';
import type { ServerContext } from './context.js';
import { idAt } from './id-at.js';
import type { Workspace } from './workspace.js';
import { emptyHistory } from '../ops/history.js';

const FIRST_LINES = 6;

async function describe(ctx: ServerContext, ws: Workspace, id: string, markdown: boolean): Promise<string> {
  const entry = ws.memory(id);
  const info = ws.model.memories.get(id);
  if (!entry || !info) return markdown ? `**${id}**: no such memory` : `${id}: no such memory`;
  const fm = entry.doc.frontMatter;
  const lines: string[] = [];
  lines.push(markdown ? `**${fm.title || id}** \`${id}\`` : `${fm.title || id} (${id})`);
  const facts = [`status: ${info.status}${info.supersededBy ? ` (by ${info.supersededBy})` : ''}`];
  let history;
  if (ws.governance) {
    try {
      history = (await ws.governance.histories()).get(id);
      const trust = ws.governance.trust({
        id,
        path: entry.rel,
        status: info.status,
        memory: entry.doc,
        history: history ?? emptyHistory(),
        inboundRefs: ws.inboundCount(id),
      });
      facts.push(`trust: ${trust.toFixed(2)}`);
    } catch (e) {
      ctx.log(`cairn: no history for hover: ${(e as Error).message}`);
    }
  }
  if (fm.updated ?? fm.created) facts.push(`updated: ${fm.updated ?? fm.created}`);
  facts.push(`kind: ${fm.kind}`);
  lines.push(facts.join(' · '));
  const c = history?.lastCommit;
  if (c) lines.push(`last commit: ${c.author}, ${c.date.slice(0, 10)}, ${c.action ?? 'commit'}`);
  else if (entry.branch) lines.push(`on branch ${entry.branch}, awaiting review`);
  const body = memoryContent(entry.doc)
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, FIRST_LINES)
    .join('\n');
  if (body) lines.push(markdown ? `---\n${body}` : body);
  return lines.join(markdown ? '\n\n' : '\n');
}

/** Handles textDocument/hover. */
export async function provideHover(ctx: ServerContext, params: HoverParams): Promise<Hover | null> {
  await ctx.ready;
  const ws = ctx.workspace;
  const entry = ctx.fileFor(params.textDocument.uri);
  if (!ws || !entry) return null;
  const at = idAt(entry, params.position);
  if (!at) return null;
  const formats = ctx.caps.textDocument?.hover?.contentFormat ?? [MarkupKind.PlainText];
  // Formats come in the client's order of preference.
  const markdown = formats[0] === MarkupKind.Markdown;
  return {
    contents: {
      kind: markdown ? MarkupKind.Markdown : MarkupKind.PlainText,
      value: await describe(ctx, ws, at.id, markdown),
    },
    range: at.range,
  };
}
