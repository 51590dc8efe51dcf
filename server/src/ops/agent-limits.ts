// Agent-tool limits from cairn.yaml (`mcp.retrieval` / `mcp.ingestion`), until core/config.ts
// carries them. Unknown or wrong values fall back to the defaults; RequestLimiter clamps the rest.
import { parse } from 'yaml';
import type { LimitsConfig } from '../core/limits.js';
import { readStoreFile } from '../store/safe-fs.js';

export type PartialLimits = {
  retrieval?: Partial<LimitsConfig['retrieval']>;
  ingestion?: Partial<LimitsConfig['ingestion']>;
};

function numbers(section: unknown, keys: string[]): Record<string, number> | undefined {
  if (!section || typeof section !== 'object') return undefined;
  const out: Record<string, number> = {};
  for (const k of keys) {
    const v = (section as Record<string, unknown>)[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

/**
 * Reads e.g. `mcp: { retrieval: { concurrency: 2, queueSize: 5, perMinute: 10 }, ingestion: { concurrency: 2, queueSize: 3 } }`.
 * A missing or unreadable file gives {} (the defaults).
 */
export async function readLimitsConfig(storeRoot: string): Promise<PartialLimits> {
  try {
    const raw = parse(readStoreFile(storeRoot, 'cairn.yaml')?.toString('utf8') ?? '') as {
      mcp?: Record<string, unknown>;
    };
    return {
      retrieval: numbers(raw?.mcp?.retrieval, ['concurrency', 'queueSize', 'perMinute']),
      ingestion: numbers(raw?.mcp?.ingestion, ['concurrency', 'queueSize']),
    };
  } catch {
    return {};
  }
}
