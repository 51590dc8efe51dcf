// What a model folder says it is: its own id, architecture, vector size and tokenizer, read from a
// `cairn-model.json` or from transformers' config.json. `model import` installs a folder under its
// own id and refuses `--model` when the folder says it is another model (issue 13: GloVe imported
// without --model became "Xenova/all-MiniLM-L6-v2" and got that model's fusion weights).
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { CairnError } from '../core/errors.js';

/** Optional file a model folder may carry: `{ "id": "org/name", "dimension": 384, ... }`. */
export const MODEL_CONFIG_FILE = 'cairn-model.json';

export interface ModelIdentity {
  /** The id the folder declares (cairn-model.json `id`, else config.json `_name_or_path`), or null. */
  declaredId: string | null;
  modelType: string | null;
  /** Vector size (cairn-model.json `dimension`, else config.json `hidden_size`), or null. */
  dims: number | null;
  tokenizer: string | null;
}

/** Models whose shape Cairn knows, so a folder holding something else is not taken for them. */
export const KNOWN_MODELS: Record<string, { modelType: string; dims: number }> = {
  'Xenova/all-MiniLM-L6-v2': { modelType: 'bert', dims: 384 },
  'glove-sif-50k': { modelType: 'bert', dims: 100 },
};

const HUB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$/;

async function readJson(path: string): Promise<Record<string, unknown>> {
  try {
    const v: unknown = JSON.parse(await readFile(path, 'utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

export async function readModelIdentity(dir: string): Promise<ModelIdentity> {
  const own = await readJson(join(dir, MODEL_CONFIG_FILE));
  const config = await readJson(join(dir, 'config.json'));
  const tokenizerConfig = await readJson(join(dir, 'tokenizer_config.json'));
  const named = text(own.id) ?? text(config._name_or_path);
  return {
    declaredId: named && HUB_ID.test(named) ? named : null,
    modelType: text(own.model_type) ?? text(config.model_type),
    dims: count(own.dimension) ?? count(config.hidden_size),
    tokenizer: text(own.tokenizer) ?? text(tokenizerConfig.tokenizer_class),
  };
}

/** The model name without its organisation, for comparing `Xenova/x` with `sentence-transformers/x`. */
const nameOf = (id: string) => (id.split('/').pop() ?? id).toLowerCase();

/** Why the folder is not the model `modelId`, or null when nothing it says contradicts it. */
export function identityConflict(identity: ModelIdentity, modelId: string): string | null {
  if (identity.declaredId && nameOf(identity.declaredId) !== nameOf(modelId)) {
    return `the folder says it is ${identity.declaredId}`;
  }
  const known =
    KNOWN_MODELS[modelId] ?? Object.entries(KNOWN_MODELS).find(([id]) => nameOf(id) === nameOf(modelId))?.[1];
  if (!known) return null;
  if (identity.dims !== null && identity.dims !== known.dims) {
    return `${modelId} has ${known.dims} dimensions, the folder's model ${identity.dims}`;
  }
  if (identity.modelType !== null && identity.modelType !== known.modelType) {
    return `${modelId} is a ${known.modelType} model, the folder's is ${identity.modelType}`;
  }
  return null;
}

/**
 * The id whose fusion weights fit a folder: the id it declares, else a known model of the same
 * shape, else '' (weightsForModel's defaults for an unknown model).
 */
export function knownModelLike(identity: ModelIdentity): string {
  if (identity.declaredId) return identity.declaredId;
  const same = Object.entries(KNOWN_MODELS).find(
    ([, m]) =>
      m.dims === identity.dims && (identity.modelType === null || m.modelType === identity.modelType),
  );
  return same?.[0] ?? 'unknown';
}

/**
 * The id to install a folder under: `requested` (--model) when the folder does not contradict it
 * (else MODEL_MISMATCH, nothing installed); otherwise the folder's own id (declared, else its
 * folder name), written as the configured model's id when it names that same model.
 */
export function chooseModelId(opts: {
  identity: ModelIdentity;
  folder: string;
  requested?: string;
  configured?: string;
}): string {
  const { identity, requested, configured } = opts;
  if (requested) {
    const conflict = identityConflict(identity, requested);
    if (conflict) {
      throw new CairnError(
        'MODEL_MISMATCH',
        `cannot import ${opts.folder} as ${requested}: ${conflict}. Import it without --model to install it ` +
          `under its own id${identity.declaredId ? ` (${identity.declaredId})` : ''}`,
        { requested, declared: identity.declaredId, dims: identity.dims },
      );
    }
    return requested;
  }
  const own = identity.declaredId ?? basename(opts.folder);
  if (configured && nameOf(configured) === nameOf(own) && !identityConflict(identity, configured))
    return configured;
  if (!HUB_ID.test(own)) {
    throw new CairnError(
      'MODEL_INVALID',
      `cannot tell the id of the model in ${opts.folder}: name it with --model ID or an "id" in ${MODEL_CONFIG_FILE}`,
    );
  }
  return own;
}
