import { readFileSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pullModel, type DownloadProgress } from '../../server/src/search/download.js';
import { importModel } from '../../server/src/search/model-install.js';
import { modelStatus } from '../../server/src/search/models.js';
import { loadEmbedder } from '../../server/src/search/embedder.js';
import { makeTinyBert } from '../fixtures/models/make-tiny-bert.mjs';

const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
type Misbehaviour = 'none' | 'drop' | 'status500' | 'stall';

let work: string;
let modelDir: string;
let cacheDir: string;
const servers: Server[] = [];

/** Serves modelDir in the hub's URL layout; `misbehave` breaks the transfer of model_quantized.onnx. */
async function startHub(misbehave: Misbehaviour): Promise<{ host: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '');
    const prefix = `/${MODEL_ID}/resolve/main/`;
    const file = req.url?.startsWith(prefix) ? req.url.slice(prefix.length) : null;
    let body: Buffer;
    try {
      body = readFileSync(join(modelDir, file ?? 'missing'));
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    const broken = file === 'onnx/model_quantized.onnx' && misbehave !== 'none';
    if (broken && misbehave === 'status500') {
      res.writeHead(500).end('internal error');
      return;
    }
    res.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/octet-stream' });
    if (!broken) {
      res.end(body);
      return;
    }
    res.write(body.subarray(0, body.length >> 1)); // half the graph, then the connection dies or stalls
    if (misbehave === 'drop') setTimeout(() => res.socket?.destroy(), 20);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { host: `http://127.0.0.1:${address.port}`, requests };
}

async function cacheEntries(): Promise<string[]> {
  return (await readdir(cacheDir).catch(() => [] as string[])).sort();
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cairn-pull-'));
  modelDir = join(work, 'hub-files');
  makeTinyBert({ outDir: modelDir });
});
beforeEach(async () => {
  cacheDir = await mkdtemp(join(work, 'cache-'));
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await rm(work, { recursive: true, force: true });
});

describe('pullModel against a local hub', () => {
  it('downloads the q8 files with progress, installs atomically and loads offline afterwards', async () => {
    const { host, requests } = await startHub('none');
    const progress: DownloadProgress[] = [];
    const status = await pullModel({
      modelId: MODEL_ID,
      cacheDir,
      remoteHost: host + '/',
      onProgress: (p) => progress.push(p),
    });
    expect(status).toMatchObject({
      installed: true,
      dtype: 'q8',
      source: 'cache',
      path: join(cacheDir, 'Xenova', 'all-MiniLM-L6-v2'),
    });
    expect(requests.sort()).toEqual(
      ['config.json', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json'].map(
        (f) => `/${MODEL_ID}/resolve/main/${f}`,
      ),
    );
    const onnxSize = statSync(join(modelDir, 'onnx/model_quantized.onnx')).size;
    const last = progress.filter((p) => p.file === 'onnx/model_quantized.onnx').at(-1);
    expect(last).toEqual({ file: 'onnx/model_quantized.onnx', loaded: onnxSize, total: onnxSize });
    expect(await cacheEntries()).toEqual(['Xenova']);

    const embedder = await loadEmbedder({ modelId: MODEL_ID, cacheDir });
    expect(embedder?.dims).toBe(32);
    await embedder?.dispose();

    // Already installed: a second pull makes no request.
    const before = requests.length;
    await pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: host });
    expect(requests.length).toBe(before);
  });

  it('adds the q8 graph to an installed fp32-only model and keeps the fp32 graph', async () => {
    const { host } = await startHub('none');
    const fp32Only = join(work, 'fp32-only');
    // MiniLM's vector size: import refuses a folder whose shape says it is another model.
    makeTinyBert({ outDir: fp32Only, dtype: 'fp32', hidden: 384, layers: 1 });
    await importModel({ from: fp32Only, modelId: MODEL_ID, cacheDir });
    expect(await modelStatus({ modelId: MODEL_ID, cacheDir })).toMatchObject({
      dtype: 'fp32',
      source: 'imported',
    });
    const status = await pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: host });
    expect(status).toMatchObject({ installed: true, dtype: 'q8', source: 'cache' });
    expect(await modelStatus({ modelId: MODEL_ID, cacheDir, dtype: 'fp32' })).toMatchObject({
      dtype: 'fp32',
    });
    expect(await cacheEntries()).toEqual(['Xenova']);
  });

  it('leaves no model and no staging folder when the connection drops halfway through the graph', async () => {
    const { host } = await startHub('drop');
    const attempt = pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: host });
    await expect(attempt).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    await expect(attempt).rejects.toThrow(
      /model_quantized\.onnx: the connection dropped.*cairn model import DIR/s,
    );
    expect(await cacheEntries()).toEqual([]);
    expect((await modelStatus({ modelId: MODEL_ID, cacheDir })).installed).toBe(false);
  });

  it('leaves nothing behind on HTTP 500 or 404', async () => {
    const { host } = await startHub('status500');
    await expect(pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: host })).rejects.toMatchObject({
      code: 'NETWORK_UNAVAILABLE',
    });
    expect(await cacheEntries()).toEqual([]);
    await expect(pullModel({ modelId: 'acme/unknown', cacheDir, remoteHost: host })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await cacheEntries()).toEqual([]);
  });

  it('cleans up when aborted mid-download or when the server stalls', async () => {
    const { host } = await startHub('stall');
    const controller = new AbortController();
    const onProgress = (p: DownloadProgress) => {
      if (p.file.endsWith('.onnx') && p.loaded > 0) controller.abort(new Error('user pressed ctrl-c'));
    };
    await expect(
      pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: host, signal: controller.signal, onProgress }),
    ).rejects.toThrow('user pressed ctrl-c');
    expect(await cacheEntries()).toEqual([]);
    await expect(
      pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: host, idleTimeoutMs: 300 }),
    ).rejects.toMatchObject({
      code: 'NETWORK_UNAVAILABLE',
      message: expect.stringMatching(/no data for 300 ms/),
    });
    expect(await cacheEntries()).toEqual([]);
  });

  it('says NETWORK_UNAVAILABLE and names the offline alternative when the host is unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const attempt = pullModel({ modelId: MODEL_ID, cacheDir, remoteHost: `http://127.0.0.1:${port}` });
    await expect(attempt).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    await expect(attempt).rejects.toThrow(/cannot be reached.*cairn model import DIR/s);
    expect(await cacheEntries()).toEqual([]);
  });
});
