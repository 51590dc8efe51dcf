// Hover on `[[id]]` (or an id in the front matter): title, status, trust, updated, last commit and
// the first lines, in the client's content format (ALE takes plain text only).
import { MarkupKind, type CancellationToken, type Hover, type HoverParams } from 'vscode-languageserver/node';
import { memoryContent } from '../core/rules/index.js';
import type { ServerContext } from './context.js';
import type { StoreHost } from './host.js';
import { idAt } from './id-at.js';
import { emptyHistory } from '../ops/history.js';

const FIRST_LINES = 6;

async function describe(ctx: ServerContext, host: StoreHost, id: string, markdown: boolean): Promise<string> {
  const ws = host.ws;
  const file = ws.memory(id);
  const info = ws.info(id);
  const doc = file && !file.link ? ws.doc(file.rel) : null;
  if (!info) {
    // While a fresh clone is read, an id may just not be read yet: say so rather than "no such".
    const why = host.indexed ? 'no such memory' : 'not read yet (Cairn is still indexing this store)';
    return markdown ? `**${id}**: ${why}` : `${id}: ${why}`;
  }
  if (!file || !doc)
    // A rejected memory has no file: what is known is that it was rejected.
    return markdown ? `**${id}** · status: ${info.status}` : `${id} (status: ${info.status})`;
  const fm = doc.frontMatter;
  const lines: string[] = [];
  lines.push(markdown ? `**${fm.title || id}** \`${id}\`` : `${fm.title || id} (${id})`);
  const facts = [`status: ${info.status}${info.supersededBy ? ` (by ${info.supersededBy})` : ''}`];
  let history;
  // The history walks main's whole log: not while the store is still being indexed.
  const gov = host.indexed ? host.governance : null;
  if (gov) {
    try {
      history = (await gov.histories()).get(id);
      const trust = gov.trust({
        id,
        path: file.rel,
        status: info.status,
        memory: doc,
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
  else if (file.branch) lines.push(`on branch ${file.branch}, awaiting review`);
  const body = memoryContent(doc)
    .split('\n')
    .filter((l) => l.trim())
    .slice(0, FIRST_LINES)
    .join('\n');
  if (body) lines.push(markdown ? `---\n${body}` : body);
  return lines.join(markdown ? '\n\n' : '\n');
}

/** Handles textDocument/hover. */
export async function provideHover(
  ctx: ServerContext,
  params: HoverParams,
  token?: CancellationToken,
): Promise<Hover | null> {
  // Never waits for indexing: what is read so far answers, and the hover says what is not yet known.
  const open = await ctx.fileFor(params.textDocument.uri, token, { waitForIndex: false });
  if (!open) return null;
  const at = idAt(open.doc, open.file.id, params.position);
  if (!at) return null;
  const formats = ctx.caps.textDocument?.hover?.contentFormat ?? [MarkupKind.PlainText];
  // Formats come in the client's order of preference.
  const markdown = formats[0] === MarkupKind.Markdown;
  return {
    contents: {
      kind: markdown ? MarkupKind.Markdown : MarkupKind.PlainText,
      value: await describe(ctx, open.host, at.id, markdown),
    },
    range: at.range,
  };
}
