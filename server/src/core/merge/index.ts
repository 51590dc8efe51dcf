// The memory merge: a three-way merge of one store file (a memory, MEMORY.md, a daily note) that
// understands its structure, so two people's edits of one memory merge without a person unless
// they changed the same lines. Pure: `cairn merge-driver` (git's merge driver) and `cairn sync`
// read and write the files. It never throws: input it cannot read as markdown with front matter
// is merged line by line, with conflict markers where both sides changed the same lines.
import { parseDocument } from 'yaml';
import { splitFrontMatter, type FrontMatterBlock } from '../format/split.js';
import { mergeMemoryMd, mergeSections, type TextMerge } from './body.js';
import { mergeLines, type Markers } from './diff3.js';
import { frontMatterParts, mergeFrontMatterParts } from './front-matter.js';

export { mergeLines } from './diff3.js';

export interface MergeInput {
  /** The file's path in the repository (git's %P): chooses how the file is read. */
  path: string;
  base: string;
  ours: string;
  theirs: string;
  /** Write the base's lines inside conflict blocks (`||||||| base`, git's diff3 style); default false. */
  showBase?: boolean;
}

export interface MergeResult {
  text: string;
  /** Conflict blocks left in `text`; 0 means a clean merge. */
  conflicts: number;
  /** `markdown`: front matter by key and body by section; `memory-md` adds MEMORY.md's entries. */
  method: 'markdown' | 'memory-md' | 'lines';
}

type Method = MergeResult['method'];

function methodFor(path: string): Method {
  const name = path.split(/[\\/]/).pop() ?? '';
  if (name === 'MEMORY.md') return 'memory-md';
  return /\.md$/i.test(name) ? 'markdown' : 'lines';
}

const endsWithNewline = (s: string): boolean => s === '' || s.endsWith('\n');

/**
 * Merges base, ours and theirs of one file.
 * @example mergeFile({ path: 'memories/x.md', base, ours, theirs }) // { text, conflicts: 0, method: 'markdown' }
 */
export function mergeFile(input: MergeInput): MergeResult {
  const { base, ours, theirs } = input;
  const eol = ours.includes('\r\n') || (!ours.includes('\n') && theirs.includes('\r\n')) ? '\r\n' : '\n';
  const markers: Markers = { eol, showBase: input.showBase ?? false };
  const method = methodFor(input.path);
  if (ours === theirs || base === theirs) return { text: ours, conflicts: 0, method };
  if (base === ours) return { text: theirs, conflicts: 0, method };
  // Every line ends with a line break while merging, so a marker never joins a line; the final
  // break is then merged like any other change.
  const full = (s: string) => (endsWithNewline(s) ? s : s + eol);
  const [b, o, t] = [full(base), full(ours), full(theirs)];
  let merged: TextMerge & { method: Method };
  try {
    const structured = method === 'lines' ? null : mergeMarkdown(b, o, t, markers, method === 'memory-md');
    merged = structured ? { ...structured, method } : { ...mergeLines(b, o, t, markers), method: 'lines' };
  } catch {
    merged = { ...mergeLines(b, o, t, markers), method: 'lines' };
  }
  const finalBreak =
    endsWithNewline(ours) === endsWithNewline(base) ? endsWithNewline(theirs) : endsWithNewline(ours);
  let text = merged.text;
  const lastLine = text.slice(text.lastIndexOf('\n', text.length - 2) + 1);
  if (!finalBreak && text.endsWith(eol) && !lastLine.startsWith('>>>>>>>')) text = text.slice(0, -eol.length);
  return { text, conflicts: merged.conflicts, method: merged.method };
}

interface Layout {
  split: FrontMatterBlock;
  yaml: string;
  body: string;
}

function layout(text: string): Layout {
  const split = splitFrontMatter(text);
  const yaml = split.state === 'ok' ? text.slice(split.yamlStart, split.yamlEnd) : '';
  const body = split.state === 'ok' ? text.slice(split.bodyStart) : text.slice(split.openStart);
  return { split, yaml, body };
}

/** Front matter by key and body by section; null when a side's front matter is never closed. */
function mergeMarkdown(
  base: string,
  ours: string,
  theirs: string,
  markers: Markers,
  memoryMd: boolean,
): TextMerge | null {
  const [b, o, t] = [layout(base), layout(ours), layout(theirs)];
  if ([b, o, t].some((l) => l.split.state === 'unclosed')) return null;
  const parts = [b, o, t].map((l) => frontMatterParts(l.yaml));
  let yaml =
    parts[0] && parts[1] && parts[2]
      ? mergeFrontMatterParts(parts[0], parts[1], parts[2], markers)
      : mergeLines(b.yaml, o.yaml, t.yaml, markers);
  // A merge of valid front matter that does not parse (an anchor used across keys): line by line.
  if (yaml.conflicts === 0 && parseDocument(yaml.text).errors.length > 0)
    yaml = mergeLines(b.yaml, o.yaml, t.yaml, markers);
  const body = (memoryMd ? mergeMemoryMd : mergeSections)(b.body, o.body, t.body, markers);
  const fenced = [o, t, b].find((l) => l.split.state === 'ok');
  const keepFences = yaml.text !== '' || (o.split.state === 'ok' && t.split.state === 'ok');
  let head = ours.slice(0, o.split.openStart);
  if (keepFences && fenced) {
    const source = fenced === o ? ours : fenced === t ? theirs : base;
    const { openStart, yamlStart, yamlEnd, bodyStart } = fenced.split;
    head += source.slice(openStart, yamlStart) + yaml.text + source.slice(yamlEnd, bodyStart);
  }
  return { text: head + body.text, conflicts: yaml.conflicts + body.conflicts };
}

export interface ByteMergeInput {
  path: string;
  showBase?: boolean;
  base: Uint8Array;
  ours: Uint8Array;
  theirs: Uint8Array;
}

/**
 * mergeFile over bytes, as git hands them over. Text that is not UTF-8 is merged line by line as
 * bytes (each byte one character), so nothing is re-encoded or lost.
 */
export function mergeBytes(input: ByteMergeInput): Omit<MergeResult, 'text'> & { bytes: Uint8Array } {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    const [base, ours, theirs] = [input.base, input.ours, input.theirs].map((b) => decoder.decode(b));
    const r = mergeFile({ path: input.path, base, ours, theirs, showBase: input.showBase });
    return { bytes: new TextEncoder().encode(r.text), conflicts: r.conflicts, method: r.method };
  } catch {
    const [base, ours, theirs] = [input.base, input.ours, input.theirs].map(bytesToChars);
    const r = mergeFile({ path: '', base, ours, theirs, showBase: input.showBase });
    return { bytes: charsToBytes(r.text), conflicts: r.conflicts, method: 'lines' };
  }
}

function bytesToChars(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return s;
}

function charsToBytes(s: string): Uint8Array {
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}
