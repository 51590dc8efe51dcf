// memory_append: a short note appended to MEMORY.md as one commit (Memory-Action: append).
// Refuses flagged text and duplicates; keeps the file under config.memoryMd.maxChars by evicting the
// oldest entries, which stay readable in git history.
import { CairnError } from '../core/errors.js';
import { writableText } from '../core/payload.js';
import { appendEntry, findDuplicate, markerLineIn, parseMemoryMd } from '../core/memory-md.js';
import { isFlagged, scanText } from '../core/scan/index.js';
import { formatCommitMessage } from '../core/trailers.js';
import { repoPath } from '../store/store.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { requireMainTip } from './read.js';
import { injectionDetector } from '../store/injection-model.js';

export const MEMORY_MD = 'MEMORY.md';
export const APPEND_LIMIT = 4_000;

export interface AppendResult {
  success: boolean;
  /** Why nothing was written: a scanner rule, or an existing entry it repeats. */
  refused: null | 'flagged' | 'duplicate' | 'near-duplicate';
  reason: string;
  timestamp: string;
  commit: string | null;
  chars: number;
  maxChars: number;
  evicted: { timestamp: string; chars: number; preview: string }[];
  findings: { code: string; message: string; line: number }[];
  /** Secrets replaced by `[redacted: <rule>]` before anything was written. */
  redacted: { field: string; code: string }[];
}

export interface AppendOptions {
  agentName?: string;
  sessionId?: string;
}

/** Appends `content` to MEMORY.md under `<!-- cairn:entry <now> -->`, as one commit on main. */
export async function appendMemoryMd(
  ctx: OpContext,
  content: string,
  opts: AppendOptions = {},
): Promise<AppendResult> {
  const { store } = ctx;
  // Control characters are refused and secrets redacted here as on every write path; what is left
  // is scanned below, and flagged text is still refused.
  const { text: clean, redacted } = writableText(content, 'content');
  const text = clean.trim();
  if (!text) throw new CairnError('INVALID_PAYLOAD', 'content: must not be empty', { field: 'content' });
  if (text.length > APPEND_LIMIT) {
    throw new CairnError(
      'INVALID_PAYLOAD',
      `content: is ${text.length} characters; an entry holds at most ${APPEND_LIMIT}. Store longer notes with memory_store`,
      { field: 'content' },
    );
  }
  const marker = markerLineIn(text);
  if (marker !== null) {
    throw new CairnError(
      'INVALID_PAYLOAD',
      `content: line ${marker} starts like a Cairn marker of MEMORY.md ("<!-- cairn:entry" or "<!-- cairn:index"), which would break the file's entries or its index; reword that line`,
      { field: 'content' },
    );
  }
  const maxChars = store.config.memoryMd.maxChars;
  const timestamp = isoNow(ctx);
  const base = { timestamp, commit: null, chars: 0, maxChars, evicted: [], findings: [], redacted };

  const findings = scanText(text, { detector: injectionDetector(store.config) });
  if (isFlagged(findings)) {
    const rules = [...new Set(findings.map((f) => f.code))];
    return {
      ...base,
      success: false,
      refused: 'flagged',
      reason: `refused: the text trips ${rules.join(', ')} (${findings[0].why}). MEMORY.md goes into every prompt, so flagged text is never appended; store it with memory_store to have a person review it`,
      findings: findings.map((f) => ({ code: f.code, message: f.message, line: f.range.start.line })),
    };
  }

  return store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const file = repoPath(store, MEMORY_MD);
    const current = (await store.repo.readText(tip, file)) ?? '# Memory\n';
    const dup = findDuplicate(parseMemoryMd(current), text);
    if (dup) {
      const where = dup.of === 'header' ? 'the curated part of MEMORY.md' : `the entry of ${dup.of}`;
      return {
        ...base,
        chars: current.length,
        success: false,
        refused: dup.kind,
        reason:
          dup.kind === 'duplicate'
            ? `refused: the same text is already in ${where}`
            : `refused: ${Math.round(dup.similarity * 100)}% similar (trigram Jaccard) to ${where}; edit that entry instead`,
      };
    }
    const next = appendEntry(current, timestamp, text, maxChars);
    const evictedNote = next.evicted.length
      ? `Evicted ${next.evicted.length} oldest entr${next.evicted.length === 1 ? 'y' : 'ies'} to stay under ${maxChars} characters; ` +
        `they remain in git history (git show ${tip.slice(0, 12)}:${file}).`
      : undefined;
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      changes: [{ path: file, content: next.text }],
      author: authorFor(ctx, opts.agentName),
      message: formatCommitMessage({
        action: 'append',
        id: MEMORY_MD,
        summary: text.split('\n')[0].slice(0, 72),
        details: evictedNote,
        origin: opts.agentName ? 'conversation' : 'human',
        agent: opts.agentName,
        session: opts.sessionId,
        extra: next.evicted.length
          ? { 'Memory-Evicted': next.evicted.map((e) => e.timestamp).join(', ') }
          : {},
      }),
    });
    return {
      ...base,
      success: true,
      refused: null,
      reason:
        (evictedNote ? `appended. ${evictedNote}` : 'appended') +
        (redacted.length ? `; ${redacted.length} secret(s) replaced by [redacted: ...] before writing` : ''),
      commit,
      chars: next.text.length,
      evicted: next.evicted.map((e) => ({
        timestamp: e.timestamp,
        chars: e.end - e.start,
        preview: e.content.slice(0, 80),
      })),
    };
  });
}
