// Installing a model into the cache (import from a folder, or a staged download): validated, then
// loaded once as the real check, then renamed into place. Kept apart from models.ts (paths, status)
// so that the embedder can use those without importing back what loads it.
import { copyFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { chooseModelId, readModelIdentity } from './model-identity.js';
import { CairnError } from '../core/errors.js';
import { makeDir } from '../store/make-dir.js';
import { loadEmbedderFromDir } from './embedder.js';
import {
  availableDtypes,
  createStagingDir,
  INSTALL_MARKER,
  modelCacheDir,
  modelFolder,
  modelStatus,
  ONNX_FILE,
  OPTIONAL_FILES,
  removeStaleStaging,
  REQUIRED_FILES,
  validateModelFolder,
  type ModelDtype,
  type ModelStatus,
} from './models.js';

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}

/**
 * Validates the model in `<stagingRoot>/model`, proves it loads and embeds, then renames it into
 * `<cacheDir>/<org>/<name>` (replacing an older copy). The staging root is always removed.
 */
export async function installStaged(opts: {
  stagingRoot: string;
  cacheDir: string;
  modelId: string;
  source: 'imported' | 'pulled';
  dtype?: ModelDtype;
}): Promise<ModelStatus> {
  const staged = join(opts.stagingRoot, 'model');
  const target = modelFolder(opts.cacheDir, opts.modelId);
  try {
    const problems = await validateModelFolder(staged);
    if (problems.length) {
      throw new CairnError('MODEL_INVALID', `model ${opts.modelId} is incomplete: ${problems.join('; ')}`);
    }
    // Loading it once is the real validation: a truncated or foreign graph fails here, not at search.
    const embedder = await loadEmbedderFromDir(staged, { dtype: opts.dtype, modelId: opts.modelId });
    await embedder.dispose();
    const marker = { modelId: opts.modelId, source: opts.source, installedAt: new Date().toISOString() };
    await writeFile(join(staged, INSTALL_MARKER), JSON.stringify(marker, null, 2) + '\n');
    await makeDir(dirname(target));
    if (await exists(target)) await rename(target, join(opts.stagingRoot, 'previous'));
    await rename(staged, target);
  } finally {
    await rm(opts.stagingRoot, { recursive: true, force: true });
  }
  return modelStatus({ modelId: opts.modelId, cacheDir: opts.cacheDir, dtype: opts.dtype });
}

/**
 * Installs a model from a folder (for air-gapped machines): validates it, copies the files
 * transformers.js needs into a staging folder inside the cache, proves it loads, then renames it
 * into place. An incomplete folder is rejected with MODEL_INVALID naming what is missing. The id is
 * the folder's own (model-identity.ts); `modelId` (--model) is refused with MODEL_MISMATCH when the
 * folder says it is another model, before anything is copied.
 */
export async function importModel(opts: {
  from: string;
  /** The id asked for (--model); default: the folder's own id. */
  modelId?: string;
  /** The store's configured model: used when the folder names that same model. */
  configuredId?: string;
  cacheDir?: string;
}): Promise<ModelStatus> {
  const from = resolve(opts.from);
  const cacheDir = opts.cacheDir ?? modelCacheDir();
  if (opts.modelId) modelFolder(cacheDir, opts.modelId); // reject a bad id before copying anything
  if (!(await stat(from).catch(() => null))?.isDirectory()) {
    throw new CairnError('NOT_FOUND', `cannot import model: ${from} is not a folder`);
  }
  const problems = await validateModelFolder(from);
  if (problems.length) {
    throw new CairnError(
      'MODEL_INVALID',
      `cannot import ${from}: ${problems.join('; ')}. The folder must hold config.json, tokenizer.json, ` +
        `tokenizer_config.json and onnx/model_quantized.onnx or onnx/model.onnx (the hub's file layout)`,
      { problems },
    );
  }
  const identity = await readModelIdentity(from);
  const modelId = chooseModelId({
    identity,
    folder: from,
    requested: opts.modelId,
    configured: opts.configuredId,
  });
  modelFolder(cacheDir, modelId);
  await removeStaleStaging(cacheDir);
  const stagingRoot = await createStagingDir(cacheDir);
  try {
    const staged = join(stagingRoot, 'model');
    await makeDir(join(staged, 'onnx'));
    const files = [...REQUIRED_FILES, ...OPTIONAL_FILES, ...Object.values(ONNX_FILE)];
    for (const file of files) {
      if (await exists(join(from, file))) await copyFile(join(from, file), join(staged, file));
    }
  } catch (e) {
    await rm(stagingRoot, { recursive: true, force: true });
    throw e;
  }
  const dtype = (await availableDtypes(from))[0];
  return installStaged({ stagingRoot, cacheDir, modelId, source: 'imported', dtype });
}
