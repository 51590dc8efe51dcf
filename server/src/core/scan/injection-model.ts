// The learned injection detector at run time: the weights file's format, and scoring a text's
// passages with a linear model over hashed n-grams (docs/injection-model.md). Pure: the weights
// are handed in as bytes (store/injection-model.ts reads the shipped file).
import { CairnError } from '../errors.js';
import {
  CHAR_GROUP,
  FEATURE_SPEC,
  extractFeatures,
  passageUnits,
  widthIn,
  windowsOf,
  type Span,
} from './injection-features.js';
import { sumUnitWeights } from './injection-sums.js';

/** First line of a weights file; the second is the JSON header, then one int8 per bucket. */
export const MODEL_MAGIC = 'cairn-injection-model 1';

/** What the weights file says about itself (its second line, JSON). */
export interface InjectionModelHeader {
  /** The feature spec the weights were trained with (injection-features.ts FEATURE_SPEC). */
  spec: string;
  /** Number of hash buckets, a power of two; the body holds one int8 per bucket. */
  buckets: number;
  /** Weight = int8 * scale. */
  scale: number;
  bias: number;
  /** Longest unit and passage in characters (passageUnits, windowsOf). */
  maxUnit: number;
  maxWindow: number;
  /** The calibrated default threshold, a probability (scan.injection.threshold overrides it). */
  threshold: number;
  /** Anything else the trainer records: data digest, seed, measured figures. */
  [key: string]: unknown;
}

export interface InjectionModel {
  header: InjectionModelHeader;
  /** One int8 per bucket; a sum of them times header.scale is a sum of weights. Kept as int8: a
   * quarter of the memory of floats, so lookups stay in cache. */
  weights: Int8Array;
  /** log2(buckets). */
  bits: number;
}

/** The model and the probability at or above which a passage is reported. */
export interface InjectionDetector {
  model: InjectionModel;
  threshold: number;
}

/** One phrase that pushed a passage's score up, with its share of the score (log-odds). */
export interface InjectionReason {
  phrase: string;
  weight: number;
}

export interface InjectionPassage extends Span {
  /** The model's probability that the passage is an injection. */
  probability: number;
  reasons: InjectionReason[];
}

/** At most this many passages per text: a hostile file cannot flood a surface with findings. */
const MAX_PASSAGES = 10;

/** Builds the bytes of a weights file (used by the training script and by tests). */
export function serializeInjectionModel(header: InjectionModelHeader, q: Int8Array): Uint8Array {
  if (q.length !== header.buckets) throw new Error('weights: one int8 per bucket');
  const head = new TextEncoder().encode(`${MODEL_MAGIC}\n${JSON.stringify(header)}\n`);
  const out = new Uint8Array(head.length + q.length);
  out.set(head, 0);
  out.set(new Uint8Array(q.buffer, q.byteOffset, q.length), head.length);
  return out;
}

/**
 * Reads a weights file. Refuses (MODEL_INVALID) a file of another format or feature spec, or one
 * whose body does not match its header: scoring with them would give meaningless numbers.
 */
export function parseInjectionModel(bytes: Uint8Array): InjectionModel {
  const invalid = (why: string) => new CairnError('MODEL_INVALID', `injection model: ${why}`);
  const first = bytes.indexOf(10);
  const second = first < 0 ? -1 : bytes.indexOf(10, first + 1);
  if (second < 0) throw invalid('not a weights file (no header)');
  const decoder = new TextDecoder();
  if (decoder.decode(bytes.subarray(0, first)) !== MODEL_MAGIC) throw invalid(`not a ${MODEL_MAGIC} file`);
  let header: InjectionModelHeader;
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(first + 1, second))) as InjectionModelHeader;
  } catch {
    throw invalid('unreadable header');
  }
  if (header.spec !== FEATURE_SPEC)
    throw invalid(`trained for features "${header.spec}", this Cairn computes "${FEATURE_SPEC}"`);
  const { buckets } = header;
  const numbers = [header.scale, header.bias, header.maxUnit, header.maxWindow, header.threshold];
  if (
    !Number.isInteger(buckets) ||
    buckets < 1 ||
    (buckets & (buckets - 1)) !== 0 ||
    numbers.some((n) => typeof n !== 'number' || !Number.isFinite(n))
  )
    throw invalid('header fields missing or out of range');
  const body = bytes.subarray(second + 1);
  if (body.length !== buckets) throw invalid(`${body.length} weight bytes for ${buckets} buckets`);
  const weights = new Int8Array(buckets);
  weights.set(new Int8Array(body.buffer, body.byteOffset, body.length));
  return { header, weights, bits: 31 - Math.clz32(buckets) };
}

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

interface UnitSums {
  units: Span[];
  /** Visible width of a stretch of the text (widthIn). */
  width: (a: number, b: number) => number;
  sc: Float64Array;
  sw: Float64Array;
  nc: Int32Array;
  nw: Int32Array;
}

/** Per unit: the sum of weights and the count of features, chars and words apart. */
function unitSums(model: InjectionModel, text: string): UnitSums {
  const width = widthIn(text);
  const units = passageUnits(text, model.header.maxUnit, width);
  const { chars, words, charCount, wordCount } = sumUnitWeights(text, units, model.weights, model.bits);
  const scale = model.header.scale;
  const sc = new Float64Array(units.length);
  const sw = new Float64Array(units.length);
  for (let i = 0; i < units.length; i++) {
    sc[i] = chars[i] * scale;
    sw[i] = words[i] * scale;
  }
  return { units, width, sc, sw, nc: charCount, nw: wordCount };
}

/** Score (log-odds) of units [a, b): bias + chars/sqrt(#chars) + words/sqrt(#words). */
function windowScore(model: InjectionModel, s: UnitSums, a: number, b: number): number {
  let c = 0;
  let w = 0;
  let nc = 0;
  let nw = 0;
  for (let u = a; u < b; u++) {
    c += s.sc[u];
    w += s.sw[u];
    nc += s.nc[u];
    nw += s.nw[u];
  }
  return model.header.bias + (nc ? c / Math.sqrt(nc) : 0) + (nw ? w / Math.sqrt(nw) : 0);
}

/** The highest score (log-odds) of any passage; -Infinity for a text without units. */
function bestScore(model: InjectionModel, s: UnitSums): number {
  const { units } = s;
  const maxWindow = model.header.maxWindow;
  let best = -Infinity;
  // The windows of windowsOf, walked without building them.
  for (let i = 0, j = 0; i < units.length; i++) {
    if (j < i + 1) j = i + 1;
    while (j < units.length && s.width(units[i].start, units[j].end) <= maxWindow) j++;
    const score = windowScore(model, s, i, j);
    if (score > best) best = score;
  }
  return best;
}

/**
 * The highest passage score of a text as a probability (0 for a text without words): what the
 * evaluation compares with the threshold.
 */
export function injectionProbability(model: InjectionModel, text: string): number {
  const s = unitSums(model, text);
  return s.units.length ? sigmoid(bestScore(model, s)) : 0;
}

/**
 * Passages of `text` the model scores at or above `threshold` (a probability), strongest first
 * chosen, reported in text order. Each flagged window is narrowed to the lines that carry it (a
 * unit is dropped from either end while that does not lower the score), and passages never overlap.
 */
export function findInjectionPassages(
  model: InjectionModel,
  text: string,
  threshold: number,
): InjectionPassage[] {
  if (threshold >= 1) return [];
  const s = unitSums(model, text);
  const cut = threshold <= 0 ? -Infinity : logit(threshold);
  // Almost every memory has no passage near the threshold: decide that before building any.
  if (!s.units.length || bestScore(model, s) < cut) return [];
  const flagged = windowsOf(s.units, model.header.maxWindow, s.width)
    .map(([a, b]) => ({ a, b, score: windowScore(model, s, a, b) }))
    .filter((w) => w.score >= cut)
    .sort((x, y) => y.score - x.score || x.a - y.a);
  const taken: { a: number; b: number; score: number }[] = [];
  for (const w of flagged) {
    if (taken.length >= MAX_PASSAGES) break;
    let { a, b, score } = w;
    for (let narrowed = true; narrowed && b - a > 1;) {
      narrowed = false;
      const dropFirst = windowScore(model, s, a + 1, b);
      const dropLast = windowScore(model, s, a, b - 1);
      if (dropFirst >= score && dropFirst >= dropLast) [a, score, narrowed] = [a + 1, dropFirst, true];
      else if (dropLast >= score) [b, score, narrowed] = [b - 1, dropLast, true];
    }
    if (taken.some((t) => a < t.b && t.a < b)) continue;
    taken.push({ a, b, score });
  }
  return taken
    .sort((x, y) => x.a - y.a)
    .map(({ a, b, score }) => {
      const span = { start: s.units[a].start, end: s.units[b - 1].end };
      return { ...span, probability: sigmoid(score), reasons: strongestPhrases(model, text, span) };
    });
}

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;

/**
 * The phrases that raised a passage's score most: every feature's share of the score goes to the
 * word it starts in (a bigram half to each word), and runs of words that each raised it become
 * phrases. Shares are in log-odds, normalised the way the score is.
 */
function strongestPhrases(model: InjectionModel, text: string, span: Span, limit = 3): InjectionReason[] {
  const passage = text.slice(span.start, span.end);
  const words = [...passage.matchAll(WORD)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    text: m[0],
  }));
  if (!words.length) return [];
  const share = new Float64Array(words.length);
  const charShare = new Float64Array(words.length);
  let nc = 0;
  let nw = 0;
  const wordAt = (offset: number): number => {
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (words[mid].start <= offset) lo = mid;
      else hi = mid - 1;
    }
    // A gram that starts in the space or punctuation before a word belongs to that word.
    return offset >= words[lo].end && lo + 1 < words.length ? lo + 1 : lo;
  };
  let lastWordStart = -1;
  const { codes, starts, length } = extractFeatures(passage, model.bits);
  for (let i = 0; i < length; i++) {
    const code = codes[i];
    const v = (code & 2 ? -model.weights[code >>> 2] : model.weights[code >>> 2]) * model.header.scale;
    const k = wordAt(starts[i]);
    if ((code & 1) === CHAR_GROUP) {
      charShare[k] += v;
      nc++;
    } else if (starts[i] === lastWordStart && k > 0) {
      // The second feature at one word start is the bigram ending in that word.
      share[k] += v / 2;
      share[k - 1] += v / 2;
      nw++;
    } else {
      share[k] += v;
      lastWordStart = starts[i];
      nw++;
    }
  }
  for (let k = 0; k < words.length; k++)
    share[k] = (nw ? share[k] / Math.sqrt(nw) : 0) + (nc ? charShare[k] / Math.sqrt(nc) : 0);
  const phrases: InjectionReason[] = [];
  for (let k = 0; k < words.length;) {
    if (share[k] <= 0.02) {
      k++;
      continue;
    }
    const first = k;
    let weight = 0;
    while (k < words.length && share[k] > 0.02 && k - first < 4) weight += share[k++];
    phrases.push({ phrase: passage.slice(words[first].start, words[k - 1].end), weight });
  }
  return phrases.sort((x, y) => y.weight - x.weight).slice(0, limit);
}
