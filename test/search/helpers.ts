// Builds small memory stores in temp folders for the search tests.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ChunkMeta } from '../../server/src/core/search/chunk.js';
import type { Embedder } from '../../server/src/search/embedder.js';
import type { SourceFile } from '../../server/src/search/index-store.js';
import { memoryMeta } from '../../server/src/search/source-files.js';

export interface MemorySpec {
  id: string;
  title: string;
  body: string;
  tags?: string[];
  updated?: string;
  status?: ChunkMeta['status'];
  trust?: number;
}

export function memoryText(m: MemorySpec): string {
  const tags = `[${(m.tags ?? []).join(', ')}]`;
  const updated = m.updated ?? '2026-01-01';
  return `---\nid: ${m.id}\ntitle: ${m.title}\nkind: note\ntags: ${tags}\ncreated: ${updated}\nupdated: ${updated}\n---\n# ${m.title}\n\n${m.body}\n`;
}

/** In-memory sources (status and trust set per spec), as the CLI's provider would hand them in. */
export function sources(specs: MemorySpec[]): SourceFile[] {
  return specs.map((m) => {
    const path = `memories/${m.id}.md`;
    const text = memoryText(m);
    return { path, text, meta: { ...memoryMeta(text, path), status: m.status ?? 'active', trust: m.trust } };
  });
}

export async function tempStore(files: Record<string, string> = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'cairn-search-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

/**
 * A deterministic bag-of-words embedder (each word adds a fixed direction from its SHA-256), for
 * tests of the vector plumbing (cache, fusion, refresh) where what a model means does not matter.
 */
export function wordHashEmbedder(dims = 16, modelId = 'test/word-hash'): Embedder {
  const embedOne = (text: string) => {
    const v = new Float32Array(dims);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      const h = createHash('sha256').update(word).digest();
      for (let i = 0; i < dims; i++) v[i] += h[i] / 255 - 0.5;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  return { modelId, dims, embed: async (texts) => texts.map(embedOne) };
}
