// Text for pictures of the graph: names come from memories, which agents write, so every format
// escapes them its own way. Here: what all formats share.

/** One line of printable text: control characters (newlines too) become spaces, lone surrogates go. */
export function oneLine(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .trim();
}

/** At most `max` characters (code points), an ellipsis marking the cut. */
export function shorten(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** The label a picture draws for a node or edge: one line, shortened. */
export const drawnLabel = (text: string, max = 48) => shorten(oneLine(text), max);

/** The sentence every format carries when the picture is a sample. */
export function sampleNote(p: {
  sampled: boolean;
  shown: { nodes: number };
  total: { nodes: number };
}): string | null {
  return p.sampled
    ? `Sampled: ${p.shown.nodes} of ${p.total.nodes} nodes shown (around the best-connected ones); narrow it with --entity, --predicate or --status`
    : null;
}
