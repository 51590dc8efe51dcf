// Semantic neighbours for the `duplicate/semantic` rule, when an embedding model is installed: one
// vector per memory (title + body), built in the background after indexing, plus the edited text's
// vector at publish time. Exact cosine over all vectors (10,000 x 384 floats is a few ms).
// No model installed: the rule stays off, said once in the log; nothing is downloaded.
import { idOf, isMemoryPath, memoryContent } from '../core/rules/index.js';
import type { Neighbour } from '../core/rules/index.js';
import type { ParsedMemory } from '../core/types.js';
import { contentOfText, type Logger, type StoreWorkspace } from '../ops/workspace/index.js';
import { loadInstalledModel, type Embedder } from '../ops/models.js';
import type { StoreHost } from './host.js';

const BATCH = 16;
/** Neighbours below this never matter (the rule's threshold is higher); keeps the list short. */
const FLOOR = 0.5;
const MAX_NEIGHBOURS = 5;

/** What is embedded for a memory: its title and body, cut at 4,000 characters. */
function embeddingText(title: string, content: string): string {
  return `${title}\n${content}`.slice(0, 4000);
}

function textOf(doc: ParsedMemory): string {
  return embeddingText(doc.frontMatter.title, memoryContent(doc));
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export class SemanticIndex {
  private readonly vectors = new Map<string, { text: string; v: Float32Array }>();

  private constructor(private readonly embedder: Embedder) {}

  /** Loads the store's configured model from the local cache, or returns null (rule off). */
  static async open(host: StoreHost, env: NodeJS.ProcessEnv, log: Logger): Promise<SemanticIndex | null> {
    const config = host.governance?.ctx.store.config.search;
    if (!config) return null;
    try {
      const embedder = await loadInstalledModel({ modelId: config.model, dtype: config.dtype, env });
      if (!embedder) {
        log(
          `cairn: duplicate/semantic is off: model ${config.model} is not installed (\`cairn model pull\` or \`cairn model import DIR\`)`,
        );
        return null;
      }
      return new SemanticIndex(embedder);
    } catch (e) {
      log(`cairn: duplicate/semantic is off: ${(e as Error).message}`);
      return null;
    }
  }

  get size(): number {
    return this.vectors.size;
  }

  /** Embeds every memory whose text changed since last time, in small batches that yield. */
  async build(ws: StoreWorkspace): Promise<void> {
    const todo: { id: string; text: string }[] = [];
    for (const f of ws.files.values()) {
      const text = f.id && !f.link ? ws.text(f.rel) : null;
      if (text === null) continue;
      const embedded = embeddingText(f.title, contentOfText(text));
      if (this.vectors.get(f.id)?.text !== embedded) todo.push({ id: f.id, text: embedded });
    }
    for (let i = 0; i < todo.length; i += BATCH) {
      const batch = todo.slice(i, i + BATCH);
      const vs = await this.embedder.embed(batch.map((e) => e.text));
      batch.forEach((e, j) => this.vectors.set(e.id, { text: e.text, v: vs[j] }));
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Memories whose vector is closest to the document's current text (the document excluded). */
  async neighbours(doc: ParsedMemory): Promise<Neighbour[]> {
    if (!isMemoryPath(doc.path)) return [];
    const id = idOf(doc);
    const text = textOf(doc);
    const known = this.vectors.get(id);
    const v = known?.text === text ? known.v : (await this.embedder.embed([text]))[0];
    this.vectors.set(id, { text, v });
    const out: Neighbour[] = [];
    for (const [other, entry] of this.vectors) {
      if (other === id) continue;
      const score = dot(v, entry.v);
      if (score >= FLOOR) out.push({ id: other, score });
    }
    return out.sort((a, b) => b.score - a.score).slice(0, MAX_NEIGHBOURS);
  }
}
