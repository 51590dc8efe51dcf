// Typing changes one paragraph, and the scanner read the whole file on every keystroke (most of an
// edit's cost in the language server). BlockScans scans a text one block at a time (the lines
// between empty lines) and remembers each block's findings by its text, so an edit rescans only the
// block it touched. It is not scanText in general: something that spans an empty line (an HTML
// comment, a secret wrapped across paragraphs, a passage the learned detector reads whole) is seen
// whole only by scanText. So the language server reads blocks only for a document whose last whole
// scan they matched, and scans it whole again once typing pauses (lsp/diagnostics.ts). Pure.
import { scanText } from './scan.js';
import type { InjectionDetector } from './injection-model.js';
import type { ScanFinding } from './types.js';

/** A run of lines between empty lines: its text and the line it starts on. */
export interface TextBlock {
  line: number;
  text: string;
}

/** The text's blocks, in order: lines that are empty (or hold only a CRLF's "\r") cut them. */
export function textBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let first = -1;
  let blockStart = 0;
  // Lines end at "\n", "\r\n" or a lone "\r", as LSP's do: `cr` is the next "\r" at or after `from`.
  let cr = text.indexOf('\r');
  for (let from = 0, line = 0; ; line++) {
    const nl = text.indexOf('\n', from);
    if (cr >= 0 && cr < from) cr = text.indexOf('\r', from);
    const lone = cr >= 0 && (nl < 0 || cr < nl - 1);
    const brk = lone ? cr : nl;
    const end = brk < 0 ? text.length : brk;
    const empty = end === from || (!lone && end === from + 1 && text.charCodeAt(from) === 13);
    if (!empty && first < 0) [first, blockStart] = [line, from];
    if (empty && first >= 0) {
      blocks.push({ line: first, text: text.slice(blockStart, from - 1) });
      first = -1;
    }
    if (brk < 0) break;
    from = brk + 1;
  }
  if (first >= 0) blocks.push({ line: first, text: text.slice(blockStart) });
  return blocks;
}

/** Past this many characters of remembered blocks, the memory starts afresh (bounded). */
const MAX_CHARS = 4_000_000;
/**
 * A text cut into more blocks than this is not read by blocks: each scan has a fixed cost (~13 us),
 * and 17,000 blocks of one word each took 230 ms the first time against 68 ms whole.
 */
export const MAX_BLOCKS = 1000;

export class BlockScans {
  private readonly scans = new Map<string, readonly ScanFinding[]>();
  private chars = 0;
  /** The detector the remembered findings are of: its weights and threshold. */
  private model: InjectionDetector['model'] | undefined;
  private threshold: number | undefined;

  /**
   * scanText block by block, each block's findings moved to its lines (see the top of the file);
   * null when the text has more than MAX_BLOCKS blocks.
   */
  scan(text: string, detector?: InjectionDetector): ScanFinding[] | null {
    const blocks = textBlocks(text);
    if (blocks.length > MAX_BLOCKS) return null;
    // Findings of another detector (cairn.yaml's threshold changed, new weights) say nothing here.
    // A detector is made afresh for each pass, so it is known by what it is made of.
    if (detector?.model !== this.model || detector?.threshold !== this.threshold) this.forget();
    this.model = detector?.model;
    this.threshold = detector?.threshold;
    const out: ScanFinding[] = [];
    for (const block of blocks) {
      for (const f of this.blockFindings(block.text, detector)) {
        const { start, end } = f.range;
        out.push({
          ...f,
          range: {
            start: { line: start.line + block.line, character: start.character },
            end: { line: end.line + block.line, character: end.character },
          },
        });
      }
    }
    return out;
  }

  private blockFindings(text: string, detector: InjectionDetector | undefined): readonly ScanFinding[] {
    const known = this.scans.get(text);
    if (known) return known;
    const found = scanText(text, { detector });
    if (this.chars + text.length > MAX_CHARS) this.forget();
    this.scans.set(text, found);
    this.chars += text.length;
    return found;
  }

  private forget(): void {
    this.scans.clear();
    this.chars = 0;
  }
}

/** True when two scans found the same things at the same places. */
export function sameFindings(a: readonly ScanFinding[], b: readonly ScanFinding[]): boolean {
  const keys = (list: readonly ScanFinding[]) =>
    list
      .map(
        (f) =>
          `${f.code}\0${f.severity}\0${f.range.start.line}:${f.range.start.character}-` +
          `${f.range.end.line}:${f.range.end.character}\0${f.message}`,
      )
      .sort()
      .join('\n');
  return a.length === b.length && keys(a) === keys(b);
}
