// The little a memory needs from markdown structure: top-level blocks (headings, lists with their
// items, everything else) and the ranges where `[[id]]` is not a reference (code, HTML, YAML).
// Two scanners produce it: remark (the reference) and a fast scanner for plain bodies.

export interface Span {
  start: number;
  end: number;
}

export interface Block extends Span {
  /** `skip` blocks (thematic breaks) carry no content. */
  type: 'heading' | 'list' | 'other' | 'skip';
  /** Heading level (1-6), headings only. */
  depth?: number;
  /** Heading text without markup, headings only. */
  text?: string;
  /** List items, lists only. */
  items?: Span[];
}

export interface MarkdownScan {
  /** Top-level blocks of the body, in order (front matter excluded). */
  blocks: Block[];
  /** Offsets where refs do not count (code spans and blocks, HTML, YAML), sorted by start. */
  excluded: Span[];
}
