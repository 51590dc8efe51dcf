// `cairn model status|pull|import` as operations: the model a store's cairn.yaml names, and the
// local model cache (search/models.ts, model-install.ts, download.ts). Only pullModel touches the
// network, and only when a person asks for it.
import path from 'node:path';
import { parseConfig } from '../core/config.js';
import type { DownloadProgress } from '../search/download.js';
import type { Embedder } from '../search/embedder.js';
import type { ModelDtype, ModelStatus } from '../search/models.js';
import { readStoreFile } from '../store/safe-fs.js';
import { CONFIG_FILE, findStoreRoot } from '../store/store.js';

export type { DownloadProgress, Embedder, ModelDtype, ModelStatus };

/** The model and dtype a store's cairn.yaml names (the defaults without a readable store). */
export function configuredModel(opts: { store?: string; env: NodeJS.ProcessEnv; cwd: string }): {
  modelId: string;
  dtype: ModelDtype;
} {
  const storeDir = opts.store ?? opts.env.CAIRN_STORE ?? findStoreRoot(opts.cwd);
  let model = { modelId: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8' as ModelDtype };
  if (storeDir) {
    try {
      const { config } = parseConfig(
        readStoreFile(path.resolve(opts.cwd, storeDir), CONFIG_FILE)?.toString('utf8') ?? '',
      );
      model = { modelId: config.search.model, dtype: config.search.dtype };
    } catch {
      // no readable store config: the defaults apply
    }
  }
  return model;
}

export async function modelCacheDir(env: NodeJS.ProcessEnv): Promise<string> {
  return (await import('../search/models.js')).modelCacheDir(env);
}

export async function modelStatus(opts: {
  modelId: string;
  cacheDir: string;
  dtype?: ModelDtype;
}): Promise<ModelStatus> {
  return (await import('../search/models.js')).modelStatus(opts);
}

export async function importModel(opts: {
  from: string;
  /** --model; default: the folder's own id (search/model-identity.ts). */
  modelId?: string;
  configuredId?: string;
  cacheDir: string;
}): Promise<ModelStatus> {
  return (await import('../search/model-install.js')).importModel(opts);
}

export async function pullModel(
  opts: Parameters<typeof import('../search/download.js').pullModel>[0],
): Promise<ModelStatus> {
  return (await import('../search/download.js')).pullModel(opts);
}

/** Loads an installed model from the local cache (never downloads); null when it is not installed. */
export async function loadInstalledModel(opts: {
  modelId: string;
  dtype: ModelDtype;
  env: NodeJS.ProcessEnv;
}): Promise<Embedder | null> {
  const [{ loadEmbedder }, { modelCacheDir: cacheDirOf }] = await Promise.all([
    import('../search/embedder.js'),
    import('../search/models.js'),
  ]);
  return loadEmbedder({ modelId: opts.modelId, cacheDir: cacheDirOf(opts.env), dtype: opts.dtype });
}
