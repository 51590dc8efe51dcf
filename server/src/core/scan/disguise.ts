// The phrase rules read a text a second time with its cheap disguises undone ("Plеase disrеgard" with
// Cyrillic е, "1gn0re", "ｉｇｎｏｒｅ", "i g n o r e"): the learned detector's normalisation does this
// for the model, and an attacker who disguises one word otherwise slips past every named rule.
import { normalise } from './injection-normalise.js';
import type { ScanInput } from './types.js';

// Most memories are plain ASCII prose: without a non-ASCII character, a digit touching a letter or
// four single letters in a row, there is no disguise to undo and the text is not normalised again.
const MAY_BE_DISGUISED =
  /[^\x00-\x7F]|[A-Za-z][0-9]|[0-9][A-Za-z]|\b[A-Za-z][ .*-][A-Za-z][ .*-][A-Za-z][ .*-][A-Za-z]\b/;

const asciiLower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);
const isWord = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/**
 * A ScanInput whose `folded` text has the disguises undone (lower case, whitespace runs as one
 * space), mapped back to offsets in `text`; null when undoing them changes nothing but case and
 * spacing, so the rules have already read this text.
 */
export function undisguisedInput(text: string, depth: number): ScanInput | null {
  if (!MAY_BE_DISGUISED.test(text)) return null;
  const { norm, at, length } = normalise(text);
  let changed = false;
  const offsets = new Int32Array(length + 1);
  for (let i = 0; i < length; i++) {
    const c = norm[i];
    offsets[i] = at[i];
    if (c === 32) continue;
    // A letter that is not the original's (look-alike, leetspeak, fullwidth, tag character), or two
    // letters brought together across a gap (a word spelt out).
    if (c !== asciiLower(text.charCodeAt(at[i]))) changed = true;
    else if (i > 0 && isWord(c) && isWord(norm[i - 1]) && at[i] - at[i - 1] > 1) changed = true;
  }
  if (!changed) return null;
  offsets[length] = text.length;
  let folded = '';
  // In slices: one call with a whole long memory's characters as arguments overflows the stack.
  for (let i = 0; i < length; i += 8192)
    folded += String.fromCharCode(...norm.subarray(i, Math.min(length, i + 8192)));
  return { text, folded, toOriginal: (offset) => offsets[Math.min(offset, length)], depth };
}
