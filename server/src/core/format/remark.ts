// The reference markdown scanner: remark (CommonMark + GFM + front matter). One frozen processor
// is shared by every call: building a unified pipeline costs more than parsing a small file.
import { unified, type Processor } from 'unified';
import remarkParse from 'remark-parse';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import type { Nodes, Root } from 'mdast';
import type { Block, MarkdownScan, Span } from './blocks.js';
import { plainHeadingText } from './heading-text.js';

/**
 * Inline constructs the scan never uses (emphasis, links and images, GFM autolink literals,
 * strikethrough, footnote calls): they change neither blocks nor code spans, only heading text,
 * which plainHeadingText reads instead. micromark resolves them in superlinear time on hostile
 * input: one unclosed `[` before 250 KB of e-mail-like words took 10 s, nested emphasis of 16 KB
 * took 14 s (bench/format-hostile.mjs).
 */
const UNUSED_CONSTRUCTS = [
  'attention',
  'labelStartLink',
  'labelStartImage',
  'labelEnd',
  'emailAutolink',
  'wwwAutolink',
  'protocolAutolink',
  'strikethrough',
  'gfmFootnoteCall',
  'gfmPotentialFootnoteCall',
];

function withoutUnusedConstructs(this: Processor): void {
  const data = this.data();
  (data.micromarkExtensions ??= []).push({ disable: { null: UNUSED_CONSTRUCTS } });
}

const processor = unified()
  .use(remarkParse)
  .use(remarkFrontmatter, ['yaml'])
  .use(remarkGfm)
  .use(withoutUnusedConstructs)
  .freeze();

const EXCLUDED_TYPES = new Set(['code', 'inlineCode', 'html', 'yaml']);

/** Parses `text` with remark; blocks before `bodyStart` (the front matter) are left out. */
export function scanWithRemark(text: string, bodyStart: number): MarkdownScan {
  // micromark drops a leading BOM from its offsets; add it back so offsets index `text`.
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const tree = processor.parse(text) as Root;
  const blocks: Block[] = [];
  const excluded: Span[] = [];
  const spanOf = (node: Nodes): Span => ({
    start: (node.position?.start.offset ?? 0) + shift,
    end: (node.position?.end.offset ?? 0) + shift,
  });

  const collectExcluded = (node: Nodes): void => {
    if (EXCLUDED_TYPES.has(node.type)) {
      excluded.push(spanOf(node));
      return;
    }
    if ('children' in node) for (const child of node.children) collectExcluded(child as Nodes);
  };
  collectExcluded(tree);

  for (const node of tree.children) {
    const span = spanOf(node);
    if (span.start < bodyStart) continue;
    if (node.type === 'heading')
      blocks.push({ ...span, type: 'heading', depth: node.depth, text: plainText(node) });
    else if (node.type === 'list') blocks.push({ ...span, type: 'list', items: node.children.map(spanOf) });
    else if (node.type === 'thematicBreak') blocks.push({ ...span, type: 'skip' });
    else blocks.push({ ...span, type: 'other' });
  }
  excluded.sort((a, b) => a.start - b.start);
  return { blocks, excluded };
}

/** The text of a node without markup (what a reader sees in a heading). */
function plainText(node: Nodes): string {
  if (node.type === 'text') return plainHeadingText(node.value);
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
  return '';
}
