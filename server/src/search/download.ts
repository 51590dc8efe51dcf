// `cairn model pull`: the only code that downloads. Files come from the hub's URL layout
// (`${remoteHost}/${modelId}/resolve/main/${file}`) into a staging folder inside the cache; the
// model is renamed into place only after every file arrived whole and the model loads. Any
// failure (host unreachable, HTTP error, dropped connection, abort) leaves no model folder behind.
import { createWriteStream } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { once } from 'node:events';
import { CairnError } from '../core/errors.js';
import { makeDir } from '../store/make-dir.js';
import {
  createStagingDir,
  DEFAULT_DTYPE,
  modelCacheDir,
  modelFolder,
  modelStatus,
  ONNX_FILE,
  REQUIRED_FILES,
  removeStaleStaging,
  type ModelDtype,
  type ModelStatus,
} from './models.js';
import { installStaged } from './model-install.js';

export const DEFAULT_REMOTE_HOST = 'https://huggingface.co';

export interface DownloadProgress {
  file: string;
  loaded: number;
  total: number | null;
}

const OFFLINE_HINT =
  'On a machine without network, copy the model folder from a machine that has it ' +
  '(config.json, tokenizer.json, tokenizer_config.json, onnx/) and run `cairn model import DIR`.';

function networkError(url: string, detail: string): CairnError {
  return new CairnError('NETWORK_UNAVAILABLE', `cannot download ${url}: ${detail}. ${OFFLINE_HINT}`, { url });
}

function describeFetchError(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}

/** Streams one URL into a file, reporting progress; throws CairnError on any incomplete transfer. */
async function downloadFile(opts: {
  url: string;
  dest: string;
  file: string;
  signal: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}): Promise<void> {
  let response: Response;
  try {
    response = await fetch(opts.url, { signal: opts.signal, redirect: 'follow' });
  } catch (e) {
    opts.signal.throwIfAborted();
    throw networkError(opts.url, `the host cannot be reached (${describeFetchError(e)})`);
  }
  if (response.status === 404) {
    throw new CairnError(
      'NOT_FOUND',
      `${opts.url} does not exist (HTTP 404): check the model id, or pick the other dtype (q8 or fp32)`,
      { url: opts.url },
    );
  }
  if (!response.ok || !response.body) throw networkError(opts.url, `HTTP ${response.status}`);
  const header = response.headers.get('content-length');
  const total = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  await makeDir(dirname(opts.dest));
  const out = createWriteStream(opts.dest);
  let loaded = 0;
  try {
    opts.onProgress?.({ file: opts.file, loaded, total });
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      loaded += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
      opts.onProgress?.({ file: opts.file, loaded, total });
    }
  } catch (e) {
    opts.signal.throwIfAborted();
    throw networkError(opts.url, `the connection dropped after ${loaded} bytes (${describeFetchError(e)})`);
  } finally {
    out.end();
    await once(out, 'close');
  }
  if (total !== null && loaded !== total) {
    throw networkError(opts.url, `received ${loaded} of ${total} bytes`);
  }
}

/**
 * Downloads a model into the cache (`cairn model pull`; never called implicitly). Returns the
 * status right away when the requested dtype is already installed. Throws NETWORK_UNAVAILABLE
 * when the host cannot be reached or the transfer breaks, NOT_FOUND on HTTP 404, MODEL_INVALID
 * when the files do not load, and the signal's reason on abort; in every case the cache holds no
 * partial model.
 */
export async function pullModel(opts: {
  modelId: string;
  cacheDir?: string;
  dtype?: ModelDtype;
  remoteHost?: string;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Abort when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
}): Promise<ModelStatus> {
  const cacheDir = opts.cacheDir ?? modelCacheDir();
  const dtype = opts.dtype ?? DEFAULT_DTYPE;
  modelFolder(cacheDir, opts.modelId); // reject a bad id before any request
  const current = await modelStatus({ modelId: opts.modelId, cacheDir, dtype });
  if (current.installed && current.dtype === dtype) return current;

  const host = (opts.remoteHost ?? DEFAULT_REMOTE_HOST).replace(/\/+$/, '');
  const files = [...REQUIRED_FILES, ONNX_FILE[dtype]];
  await removeStaleStaging(cacheDir);
  const stagingRoot = await createStagingDir(cacheDir);
  const idle = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, idle.signal]) : idle.signal;
  const idleMs = opts.idleTimeoutMs ?? 60_000;
  let timer = setTimeout(() => idle.abort(), idleMs);
  const onProgress = (p: DownloadProgress) => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
    opts.onProgress?.(p);
  };
  try {
    for (const file of files) {
      const url = `${host}/${opts.modelId}/resolve/main/${file}`;
      try {
        await downloadFile({ url, dest: join(stagingRoot, 'model', file), file, signal, onProgress });
      } catch (e) {
        if (idle.signal.aborted && !opts.signal?.aborted) {
          const idleText = idleMs >= 1000 ? `${Math.round(idleMs / 1000)} s` : `${idleMs} ms`;
          throw networkError(url, `no data for ${idleText}`);
        }
        throw e;
      }
    }
    // Adding a dtype to an installed model keeps the graph it already had.
    const installed = modelFolder(cacheDir, opts.modelId);
    for (const other of Object.values(ONNX_FILE).filter((f) => f !== ONNX_FILE[dtype])) {
      await copyFile(join(installed, other), join(stagingRoot, 'model', other)).catch(() => undefined);
    }
  } catch (e) {
    await rm(stagingRoot, { recursive: true, force: true });
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return installStaged({ stagingRoot, cacheDir, modelId: opts.modelId, source: 'pulled', dtype });
}
