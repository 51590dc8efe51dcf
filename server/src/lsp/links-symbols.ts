// Document links (each `[[id]]` opens its memory) and document symbols (front-matter keys and
// markdown headings), hierarchical when the client supports it.
import {
  SymbolKind,
  type CancellationToken,
  type DocumentLink,
  type DocumentLinkParams,
  type DocumentSymbol,
  type DocumentSymbolParams,
  type SymbolInformation,
} from 'vscode-languageserver/node';
import { parseNote } from '../core/format/index.js';
import { lineIndexOf } from '../core/format/index.js';
import type { ServerContext } from './context.js';
import { innerRange } from './id-at.js';

export async function provideDocumentLinks(
  ctx: ServerContext,
  params: DocumentLinkParams,
  token?: CancellationToken,
): Promise<DocumentLink[] | null> {
  const open = await ctx.fileFor(params.textDocument.uri, token);
  if (!open) return null;
  const links: DocumentLink[] = [];
  for (const ref of open.doc.refs) {
    const target = open.host.ws.memory(ref.id);
    if (!target) continue;
    links.push({
      range: innerRange(open.doc.text, ref),
      target: open.host.uriOf(target.rel),
      tooltip: target.title || ref.id,
    });
  }
  return links;
}

export async function provideDocumentSymbols(
  ctx: ServerContext,
  params: DocumentSymbolParams,
  token?: CancellationToken,
): Promise<DocumentSymbol[] | SymbolInformation[] | null> {
  const open = await ctx.fileFor(params.textDocument.uri, token);
  if (!open) return null;
  const entry = { doc: open.doc, rel: open.rel };
  const symbols: DocumentSymbol[] = [];
  for (const [key, range] of Object.entries(entry.doc.keyRanges)) {
    if (key.includes('.')) continue;
    const line = lineIndexOf(entry.doc.text).line(range.start.line);
    const keyStart = Math.max(0, line.indexOf(`${key}:`));
    const full = { start: { line: range.start.line, character: keyStart }, end: range.end };
    symbols.push({ name: key, kind: SymbolKind.Property, range: full, selectionRange: full });
  }
  const stack: { depth: number; symbol: DocumentSymbol }[] = [];
  for (const h of parseNote(entry.doc.text, { path: entry.rel }).headings) {
    const symbol: DocumentSymbol = {
      name: h.text || '(heading)',
      kind: SymbolKind.String,
      range: h.sectionRange,
      selectionRange: h.range,
      children: [],
    };
    while (stack.length && stack[stack.length - 1].depth >= h.depth) stack.pop();
    if (stack.length) stack[stack.length - 1].symbol.children!.push(symbol);
    else symbols.push(symbol);
    stack.push({ depth: h.depth, symbol });
  }
  if (ctx.caps.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport) return symbols;
  const flat: SymbolInformation[] = [];
  const walk = (list: DocumentSymbol[], container?: string) => {
    for (const s of list) {
      flat.push({
        name: s.name,
        kind: s.kind,
        location: { uri: params.textDocument.uri, range: s.range },
        containerName: container,
      });
      walk(s.children ?? [], s.name);
    }
  };
  walk(symbols);
  return flat;
}
