// A small markdown renderer that builds DOM nodes, never HTML: raw HTML in a memory is shown as
// text, link targets pass through safeHref (no javascript:), and `[[id]]` becomes a link to that
// memory's page. Headings, paragraphs, lists, quotes, fenced code, inline code, emphasis and links:
// what memory files use.
import { h, route, visible } from './dom.js';

/** The body without its front matter. */
export function stripFrontMatter(text: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
  return m ? text.slice(m[0].length) : text;
}

export function renderMarkdown(text: string): HTMLElement {
  const root = h('div', { class: 'markdown' });
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)(.*)$/.exec(line);
    if (fence) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) code.push(lines[i]);
      i++;
      root.append(h('pre', null, h('code', null, code.join('\n'))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // Memory headings sit under the page's own h1/h2: shift them down one level.
      const level = Math.min(6, heading[1].length + 2);
      root.append(h(`h${level}` as 'h3', null, inline(heading[2])));
      i++;
      continue;
    }
    if (/^\s*([-*_])\s*(\1\s*){2,}$/.test(line)) {
      root.append(h('hr'));
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quote: string[] = [];
      for (; i < lines.length && /^\s*>/.test(lines[i]); i++) quote.push(lines[i].replace(/^\s*>\s?/, ''));
      root.append(h('blockquote', null, renderMarkdown(quote.join('\n'))));
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = h(ordered ? 'ol' : 'ul');
      for (; i < lines.length && lines[i].trim(); i++) {
        const m = item.exec(lines[i]);
        if (m) list.append(h('li', null, inline(lines[i].slice(m[0].length))));
        else if (list.lastChild) {
          // A continuation line of the item above.
          list.lastChild.appendChild(document.createTextNode(' '));
          appendInline(list.lastChild, lines[i].trim());
        }
      }
      root.append(list);
      continue;
    }
    const para: string[] = [];
    for (
      ;
      i < lines.length &&
      lines[i].trim() &&
      !/^(#{1,6}\s|\s*(```|~~~)|\s*>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]);
      i++
    )
      para.push(lines[i].trim());
    if (para.length === 0) para.push(lines[i++].trim());
    root.append(h('p', null, inline(para.join(' '))));
  }
  return root;
}

function appendInline(parent: Node, text: string): void {
  for (const n of inline(text)) parent.appendChild(n);
}

const INLINE =
  /(`+)([\s\S]*?)\1|\[\[([^\]\n]{1,200})\]\]|\[([^\]\n]*)\]\(([^)\s]*)\)|\*\*([^*\n]+)\*\*|(?<!\w)__([^_\n]+)__(?!\w)|\*([^*\n]+)\*|(?<!\w)_([^_\n]+)_(?!\w)/g;

/** Inline markdown as nodes: text stays text. */
export function inline(text: string): Node[] {
  const out: Node[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(document.createTextNode(visible(text.slice(last, m.index))));
    last = m.index + m[0].length;
    if (m[1]) out.push(h('code', null, m[2]));
    else if (m[3] !== undefined) {
      const id = m[3].split('|')[0].trim();
      out.push(h('a', { href: route('memory', id), class: 'ref' }, `[[${m[3]}]]`));
    } else if (m[4] !== undefined) {
      out.push(h('a', { href: m[5], rel: 'noopener noreferrer', target: '_blank' }, m[4] || m[5]));
    } else if (m[6] ?? m[7]) out.push(h('strong', null, (m[6] ?? m[7]) as string));
    else out.push(h('em', null, (m[8] ?? m[9]) as string));
  }
  if (last < text.length) out.push(document.createTextNode(visible(text.slice(last))));
  return out;
}
