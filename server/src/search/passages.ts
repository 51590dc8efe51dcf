// Passages that fit a model's window: a text longer than the model reads (maxTokens, special
// tokens included) is cut into overlapping word windows, each embedded on its own, and the
// vectors are averaged per text. Without this an embedder truncates, and the end of a long chunk
// never reaches the vector (issue 13).

/** Share of a window repeated in the next one, so a sentence cut at a border is whole in one. */
const OVERLAP = 0.25;
/** Tokens the model adds to every input ([CLS] and [SEP] for BERT). */
const SPECIAL_TOKENS = 2;

/**
 * The text itself when it fits, else windows of whole words sized from the text's own tokens per
 * word (so a text dense in sub-word pieces gets shorter windows), overlapping by OVERLAP.
 * `countTokens` counts a text's tokens with the model's tokenizer (special tokens included).
 */
export function windowPassages(
  text: string,
  maxTokens: number,
  countTokens: (t: string) => number,
): string[] {
  const total = countTokens(text);
  if (total <= maxTokens) return [text];
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length <= 1) return [text];
  const perWord = (total - SPECIAL_TOKENS) / words.length;
  let size = Math.max(1, Math.floor((maxTokens - SPECIAL_TOKENS) / perWord));
  // The estimate is an average: shrink until the densest window fits (a few tries at most).
  for (let tries = 0; tries < 4; tries++) {
    const windows = cut(words, size);
    if (windows.every((w) => countTokens(w) <= maxTokens) || size === 1) return windows;
    size = Math.max(1, Math.floor(size * 0.85));
  }
  return cut(words, size);
}

function cut(words: string[], size: number): string[] {
  const step = Math.max(1, size - Math.floor(size * OVERLAP));
  const out: string[] = [];
  for (let start = 0; ; start += step) {
    out.push(words.slice(start, start + size).join(' '));
    if (start + size >= words.length) break;
  }
  return out;
}

/** The normalized mean of the vectors of each owner (vectors[i] belongs to owner[i]). */
export function poolByOwner(vectors: Float32Array[], owner: number[], owners: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let o = 0; o < owners; o++) out.push(new Float32Array(vectors[owner.indexOf(o)]?.length ?? 0));
  vectors.forEach((v, i) => {
    const sum = out[owner[i]];
    for (let d = 0; d < v.length; d++) sum[d] += v[d];
  });
  for (const v of out) {
    let norm = 0;
    for (let d = 0; d < v.length; d++) norm += v[d] * v[d];
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < v.length; d++) v[d] /= norm;
  }
  return out;
}
