// Local embedding models: where they live and what is installed (model-install.ts installs one). Models are folders in transformers.js's local layout:
//   <cacheDir>/<org>/<name>/{config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx}
// Nothing here touches the network; download.ts does, and only when `cairn model pull` asks.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CairnError } from '../core/errors.js';
import { makeDir } from '../store/make-dir.js';
import { MODEL_CONFIG_FILE } from './model-identity.js';

export type ModelDtype = 'q8' | 'fp32';

export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
export const DEFAULT_DTYPE: ModelDtype = 'q8';

/** The ONNX file transformers.js loads for each dtype. */
export const ONNX_FILE: Record<ModelDtype, string> = {
  q8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
};
/** Files every model needs besides its ONNX graph. */
export const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
/** Optional files copied along when present (tokenizers of some models need them). */
export const OPTIONAL_FILES = [
  'special_tokens_map.json',
  'vocab.txt',
  'sentence_bert_config.json',
  MODEL_CONFIG_FILE,
];
/** Written into an installed folder by import/pull; its absence means "placed there by hand". */
export const INSTALL_MARKER = '.cairn-model.json';

export interface ModelStatus {
  modelId: string;
  installed: boolean;
  path: string | null;
  dtype: string;
  sizeBytes: number;
  source: 'cache' | 'imported' | 'none';
  problem?: string;
}

/**
 * The folder models are cached in: CAIRN_MODELS_DIR, else $XDG_CACHE_HOME/cairn/models,
 * else ~/.cache/cairn/models.
 */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CAIRN_MODELS_DIR) return resolve(env.CAIRN_MODELS_DIR);
  if (env.XDG_CACHE_HOME) return resolve(env.XDG_CACHE_HOME, 'cairn', 'models');
  return join(homedir(), '.cache', 'cairn', 'models');
}

const ID_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

/**
 * The folder of a model id inside the cache. Ids are `org/name` or `name` (hub style); anything
 * else (`..`, absolute paths, empty segments) is rejected so an id can never escape the cache.
 */
export function modelFolder(cacheDir: string, modelId: string): string {
  const segments = modelId.split('/');
  const valid =
    segments.length <= 2 &&
    segments.every((s) => ID_SEGMENT.test(s) && !s.includes('..') && !s.includes('--'));
  if (!valid) {
    throw new CairnError(
      'CONFIG_INVALID',
      `model id "${modelId}" is not a hub-style id like "Xenova/all-MiniLM-L6-v2": fix the model setting in cairn.yaml`,
      { modelId },
    );
  }
  return join(resolve(cacheDir), ...segments);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function readJsonObject(path: string): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Checks that a folder holds a loadable model; returns the problems found (empty when fine).
 * Checks structure only (files present, JSON that parses); loading is the real proof.
 */
export async function validateModelFolder(dir: string): Promise<string[]> {
  const problems: string[] = [];
  for (const file of REQUIRED_FILES) {
    const json = await readJsonObject(join(dir, file));
    if (!json) problems.push(`${file} is missing or not a JSON object`);
    else if (file === 'config.json' && typeof json.model_type !== 'string') {
      problems.push('config.json has no model_type');
    } else if (file === 'tokenizer.json' && (json.model === null || typeof json.model !== 'object')) {
      problems.push('tokenizer.json has no tokenizer model');
    }
  }
  if (!(await availableDtypes(dir)).length) {
    problems.push(`no ONNX graph: expected ${ONNX_FILE.q8} or ${ONNX_FILE.fp32}`);
  }
  return problems;
}

/** The dtypes whose ONNX file exists (non-empty) in a model folder, q8 first. */
export async function availableDtypes(dir: string): Promise<ModelDtype[]> {
  const found: ModelDtype[] = [];
  for (const dtype of ['q8', 'fp32'] as const) {
    const info = await stat(join(dir, ONNX_FILE[dtype])).catch(() => null);
    if (info?.isFile() && info.size > 0) found.push(dtype);
  }
  return found;
}

/**
 * Picks the dtype to load: the requested one when its file exists, else the other one with a
 * note saying so, else null.
 */
export async function chooseDtype(
  dir: string,
  requested: ModelDtype,
): Promise<{ dtype: ModelDtype; note?: string } | null> {
  const available = await availableDtypes(dir);
  if (available.includes(requested)) return { dtype: requested };
  const other = available[0];
  if (!other) return null;
  return {
    dtype: other,
    note: `requested dtype ${requested} (${ONNX_FILE[requested]}) is not installed; using ${other} (${ONNX_FILE[other]})`,
  };
}

async function folderSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath ?? dir, entry.name))).size;
  }
  return total;
}

/**
 * What is installed for a model id: path, dtype that would load, size, and where it came from.
 * Never throws on a broken folder: it reports `installed: false` with the problem.
 */
export async function modelStatus(opts: {
  modelId: string;
  cacheDir?: string;
  dtype?: ModelDtype;
}): Promise<ModelStatus> {
  const requested = opts.dtype ?? DEFAULT_DTYPE;
  const dir = modelFolder(opts.cacheDir ?? modelCacheDir(), opts.modelId);
  const none: ModelStatus = {
    modelId: opts.modelId,
    installed: false,
    path: null,
    dtype: requested,
    sizeBytes: 0,
    source: 'none',
  };
  if (!(await exists(dir))) return none;
  const marker = await readJsonObject(join(dir, INSTALL_MARKER));
  const source = marker?.source === 'imported' ? 'imported' : 'cache';
  const sizeBytes = await folderSize(dir);
  const problems = await validateModelFolder(dir);
  if (problems.length) {
    const problem = `${problems.join('; ')}: run \`cairn model pull\` or \`cairn model import DIR\` again`;
    return { ...none, path: dir, sizeBytes, source, problem };
  }
  const chosen = (await chooseDtype(dir, requested)) as { dtype: ModelDtype; note?: string };
  const status: ModelStatus = { ...none, installed: true, path: dir, dtype: chosen.dtype, sizeBytes, source };
  if (chosen.note) status.problem = chosen.note;
  return status;
}

/** Creates a private staging folder inside the cache (same file system, so rename is atomic). */
export async function createStagingDir(cacheDir: string): Promise<string> {
  await makeDir(cacheDir);
  const root = join(cacheDir, `.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  await makeDir(join(root, 'model'));
  return root;
}

/** Removes staging folders left by a killed process (older than an hour, so never a live one). */
export async function removeStaleStaging(cacheDir: string): Promise<void> {
  const entries = await readdir(cacheDir).catch(() => [] as string[]);
  for (const name of entries.filter((n) => n.startsWith('.partial-'))) {
    const info = await stat(join(cacheDir, name)).catch(() => null);
    if (info && Date.now() - info.mtimeMs > 3_600_000)
      await rm(join(cacheDir, name), { recursive: true, force: true });
  }
}
