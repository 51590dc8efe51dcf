// The transformers.js adapter: turns texts into L2-normalized sentence vectors (mean pooling)
// with a model from the local cache. Remote models are always disabled here: search never
// touches the network; only `cairn model pull` (download.ts) downloads.
import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CairnError } from '../core/errors.js';
import { DEFAULT_WEIGHTS, weightsForModel, type FusionWeights } from '../core/search/rank.js';
import { poolByOwner, windowPassages } from './passages.js';
import { identityConflict, knownModelLike, readModelIdentity } from './model-identity.js';
import {
  chooseDtype,
  DEFAULT_DTYPE,
  modelCacheDir,
  modelFolder,
  validateModelFolder,
  type ModelDtype,
} from './models.js';

export interface Embedder {
  readonly modelId: string;
  readonly dims: number;
  /** L2-normalized, mean-pooled vectors, one per text, in input order. */
  embed(texts: string[], opts?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** Fusion weights of the model actually loaded (default: weightsForModel(modelId)). */
  readonly fusion?: FusionWeights;
}

/** An embedder with what was loaded and a way to free the ONNX session. */
export interface LoadedEmbedder extends Embedder {
  readonly dtype: ModelDtype;
  readonly path: string;
  /** Texts are truncated to this many tokens (special tokens included). */
  readonly maxTokens: number;
  dispose(): Promise<void>;
}

type Extractor = {
  tokenizer: { model_max_length?: number; encode(text: string): number[] };
  (
    texts: string[],
    opts: { pooling: 'mean'; normalize: boolean },
  ): Promise<{ data: unknown; dims: number[] }>;
  dispose(): Promise<void>;
};

const BATCH_SIZE = 32;
/**
 * sentence-transformers truncates all-MiniLM-L6-v2 at 256 tokens (its max_seq_length), and its
 * published scores are measured that way; attention cost grows with the square of the length.
 */
export const DEFAULT_MAX_TOKENS = 256;
// transformers.js reads its settings from one global `env`; loads are serialized so two loads
// from different folders cannot see each other's localModelPath.
let envLock: Promise<unknown> = Promise.resolve();

/** A folder name transformers.js accepts as a model id (its REPO_ID check, minus the org part). */
const HUB_NAME = /^\w(?:[\w.-]{0,94}\w)?$/;

async function createExtractor(dir: string, dtype: ModelDtype): Promise<Extractor> {
  const run = async (): Promise<Extractor> => {
    const { env, pipeline } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.useFSCache = false; // never read transformers.js's own download cache
    const name = basename(dir);
    // A hub-style folder name loads relative to localModelPath; any other name is passed as an
    // absolute path, which transformers.js reads directly.
    const useName = HUB_NAME.test(name) && !name.includes('--') && !name.includes('..');
    env.localModelPath = useName ? dirname(dir) + '/' : '/';
    const id = useName ? name : dir;
    return (await pipeline('feature-extraction', id, { dtype })) as unknown as Extractor;
  };
  const result = envLock.then(run, run);
  envLock = result.catch(() => undefined);
  return result;
}

class TransformersEmbedder implements LoadedEmbedder {
  dims = 0;
  fusion: FusionWeights = DEFAULT_WEIGHTS;
  readonly maxTokens: number;
  constructor(
    readonly modelId: string,
    readonly dtype: ModelDtype,
    readonly path: string,
    private readonly extractor: Extractor,
    maxTokens: number,
  ) {
    this.maxTokens = Math.min(maxTokens, extractor.tokenizer.model_max_length ?? Infinity);
    extractor.tokenizer.model_max_length = this.maxTokens;
  }

  /**
   * One vector per text. A text longer than the model's window is cut into overlapping passages
   * that fit it (passages.ts), and their vectors are averaged: the whole text counts, not only its
   * first maxTokens tokens (issue 13: chunks are 400 words, the window 256 tokens).
   */
  async embed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const pieces: string[] = [];
    const owner: number[] = [];
    texts.forEach((text, i) => {
      for (const p of windowPassages(
        text,
        this.maxTokens,
        (t) => this.extractor.tokenizer.encode(t).length,
      )) {
        pieces.push(p);
        owner.push(i);
      }
    });
    const vectors = await this.embedPassages(pieces, opts);
    return poolByOwner(vectors, owner, texts.length);
  }

  private async embedPassages(texts: string[], opts: { signal?: AbortSignal }): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    // Batches of similar length waste less work on padding; the mask makes results order-free.
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    for (let start = 0; start < order.length; start += BATCH_SIZE) {
      opts.signal?.throwIfAborted();
      const indices = order.slice(start, start + BATCH_SIZE);
      const tensor = await this.extractor(
        indices.map((i) => texts[i]),
        { pooling: 'mean', normalize: true },
      );
      const data = tensor.data as Float32Array;
      const dims = tensor.dims[tensor.dims.length - 1];
      indices.forEach((textIndex, row) => {
        out[textIndex] = data.slice(row * dims, (row + 1) * dims);
      });
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.extractor.dispose();
  }
}

/** max_seq_length from sentence_bert_config.json (sentence-transformers models ship it), else the default. */
async function maxSequenceLength(dir: string): Promise<number> {
  try {
    const config = JSON.parse(await readFile(join(dir, 'sentence_bert_config.json'), 'utf8')) as {
      max_seq_length?: unknown;
    };
    const value = config.max_seq_length;
    return typeof value === 'number' && Number.isInteger(value) && value > 2 ? value : DEFAULT_MAX_TOKENS;
  } catch {
    return DEFAULT_MAX_TOKENS;
  }
}

/**
 * Loads a model from an explicit folder (hub layout: config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model*.onnx), as `--model-dir` does for evaluations and benchmarks.
 * Picks the requested dtype when its ONNX file exists, else the one that does (the GloVe model
 * only has fp32). Texts are cut at `maxTokens` (default: the folder's sentence_bert_config.json
 * max_seq_length, else 256). Throws MODEL_INVALID when the folder is incomplete or fails to load.
 */
export async function loadEmbedderFromDir(
  dir: string,
  opts: { dtype?: ModelDtype; modelId?: string; maxTokens?: number } = {},
): Promise<LoadedEmbedder> {
  const path = resolve(dir);
  const modelId = opts.modelId ?? basename(path);
  const problems = await validateModelFolder(path);
  const chosen = await chooseDtype(path, opts.dtype ?? DEFAULT_DTYPE);
  if (problems.length || !chosen) {
    throw new CairnError('MODEL_INVALID', `model folder ${path} cannot be used: ${problems.join('; ')}`, {
      problems,
    });
  }
  let embedder: TransformersEmbedder | undefined;
  try {
    const extractor = await createExtractor(path, chosen.dtype);
    const maxTokens = opts.maxTokens ?? (await maxSequenceLength(path));
    embedder = new TransformersEmbedder(modelId, chosen.dtype, path, extractor, maxTokens);
    // One embedding tells the vector size and proves the graph runs before anyone relies on it.
    const [probe] = await embedder.embed(['cairn']);
    if (!probe?.length || !probe.every(Number.isFinite)) {
      throw new Error('the model returned no usable vector');
    }
    embedder.dims = probe.length;
    // Weights of the model the folder holds: a folder installed under another model's id (an
    // import before issue 13) must not borrow that model's weights.
    const identity = { ...(await readModelIdentity(path)), dims: probe.length };
    const conflict = identityConflict(identity, modelId);
    embedder.fusion = !conflict ? weightsForModel(modelId) : weightsForModel(knownModelLike(identity));
  } catch (e) {
    await embedder?.dispose().catch(() => undefined);
    throw new CairnError(
      'MODEL_INVALID',
      `model ${modelId} at ${path} failed to load (${(e as Error).message}): ` +
        'run `cairn model pull` again or import a fresh copy with `cairn model import DIR`',
      { path },
    );
  }
  return embedder;
}

/**
 * Loads an installed model from the cache; null when it is not installed (search then runs
 * keyword-only and says so). Never touches the network.
 */
export async function loadEmbedder(opts: {
  modelId: string;
  cacheDir?: string;
  dtype?: ModelDtype;
  maxTokens?: number;
}): Promise<LoadedEmbedder | null> {
  const dir = modelFolder(opts.cacheDir ?? modelCacheDir(), opts.modelId);
  if (!(await chooseDtype(dir, opts.dtype ?? DEFAULT_DTYPE))) return null;
  return loadEmbedderFromDir(dir, { dtype: opts.dtype, modelId: opts.modelId, maxTokens: opts.maxTokens });
}
