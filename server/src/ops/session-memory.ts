// memory_manager: session scratch for large tool output, under `<store>/.cairn/sessions/<session>/`
// (git-ignored, folders 0700 and files 0600: scratch is private to this machine's user). Items are
// `mem_<id>.<ext>` plus `mem_<id>_metadata.json`; answers carry a reference, not the content. An item
// can be promoted into a real memory, which goes through governance. A file_path is read only inside
// the store or a root the MCP client declared, never in .git/ or .cairn/ (safe-fs.ts).
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { controlCharProblem } from '../core/control-chars.js';
import { CairnError } from '../core/errors.js';
import { LIMITS } from '../core/payload.js';
import { redactSecrets } from '../core/scan/index.js';
import {
  assertItemId,
  assertSessionName,
  fileTypeOf,
  looksBinary,
  refOf,
  summarize,
  type SessionItemMeta,
  type SessionItemRef,
} from '../core/session-items.js';
import type { Origin } from '../core/types.js';
import { atomicWriteFile } from '../store/atomic.js';
import { openCairnDir } from '../store/cairn-dir.js';
import { isDeadTemp, isDeadWriter } from '../store/dead-temps.js';
import { makeDir } from '../store/make-dir.js';
import { readConfinedFile, readNoFollow } from '../store/safe-fs.js';
import type { OpContext } from './context.js';
import { storeMemory, type StoreResult } from './store-memory.js';
import { withholdForAgent } from './withhold.js';

/** Larger inputs are refused: scratch is for tool output, not for data sets. */
export const MAX_ITEM_BYTES = 50 * 1024 * 1024;
/** A whole read returns at most this much; read the rest with offset/length. */
export const MAX_READ = 256 * 1024;

/** `.cairn/sessions`, or a private temporary folder for this process when .cairn is unusable. */
export async function sessionsRoot(ctx: OpContext): Promise<string> {
  return (await openCairnDir(ctx.store.root, ctx.store.repo)).folder('sessions');
}

async function sessionDir(ctx: OpContext, session: string): Promise<string> {
  assertSessionName(session);
  return path.join(await sessionsRoot(ctx), session);
}

/** Private scratch: the owner alone reads it, whatever the source file's mode was. */
const PRIVATE_FILE = 0o600;

let sequence = 0;

/**
 * Sorts in creation order (milliseconds, then a per-process counter); the writer's pid (8 hex
 * digits) and random bits keep processes apart. The pid tells an item whose metadata never came
 * (its writer killed between the two files) from one still being written.
 */
export function newItemId(now: Date): string {
  sequence = (sequence + 1) % 256;
  const time = now.getTime().toString(16).padStart(12, '0');
  const pid = process.pid.toString(16).padStart(8, '0');
  return `${time}${sequence.toString(16).padStart(2, '0')}${pid}${randomBytes(2).toString('hex')}`;
}

/** The pid of the process that wrote item `id`, or null for an id without one (an older version's). */
function writerOf(id: string): number | null {
  return id.length === 26 ? parseInt(id.slice(14, 22), 16) : null;
}

const metaFile = (dir: string, id: string) => path.join(dir, `mem_${id}_metadata.json`);

export interface StoreItemInput {
  session: string;
  title: string;
  /** Text content; or give `filePath` (any type, binary included), absolute or store-relative. */
  content?: string;
  filePath?: string;
  /** Folders besides the store where `filePath` may be (the MCP client's declared roots). */
  roots?: string[];
  sourceTool?: string;
}

/**
 * A title or tool name is one line of plain text: it is listed back to agents and becomes the
 * topic of a promoted memory, where a control character is refused (an escape sequence hides text
 * on a terminal). Refused when stored, naming the field, rather than when promoted.
 */
function assertOneLine(field: string, value: string): void {
  const problem =
    controlCharProblem(field, value) ??
    (/[\n\t]/.test(value) ? `contains a line break or tab; ${field} is one line` : null);
  if (problem) throw new CairnError('INVALID_REQUEST', `${field}: ${problem}`, { field });
}

/** A file's path relative to the store ('memories/x.md', posix), or null when it lies outside it. */
function storePathOf(ctx: OpContext, realPath: string): string | null {
  let root: string;
  try {
    root = realpathSync(ctx.store.root);
  } catch {
    return null;
  }
  const rel = path.relative(root, realPath);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/** Saves text or a file's bytes as a session item; returns its reference. */
export async function storeSessionItem(ctx: OpContext, input: StoreItemInput): Promise<SessionItemRef> {
  assertSessionName(input.session);
  assertOneLine('title', input.title);
  if (input.sourceTool !== undefined) assertOneLine('sourceTool', input.sourceTool);
  if ((input.content === undefined) === (input.filePath === undefined)) {
    throw new CairnError(
      'INVALID_REQUEST',
      'content: give either content (text) or file_path, not both or neither',
      {
        field: 'content',
      },
    );
  }
  let bytes: Uint8Array;
  let fileType = 'txt';
  let storeFile: string | null = null;
  if (input.filePath !== undefined) {
    const roots = [ctx.store.root, ...(input.roots ?? [])];
    // Relative to the store, not to wherever the server process was started; still confined.
    const file = path.resolve(ctx.store.root, input.filePath);
    const read = readConfinedFile(file, roots, { field: 'filePath', maxBytes: MAX_ITEM_BYTES });
    bytes = read.bytes;
    fileType = fileTypeOf(file);
    storeFile = storePathOf(ctx, read.realPath);
  } else {
    bytes = Buffer.from(input.content!, 'utf8');
    if (bytes.length > MAX_ITEM_BYTES) {
      throw new CairnError('INVALID_REQUEST', `content: over the ${MAX_ITEM_BYTES}-byte limit`, {
        field: 'content',
      });
    }
  }
  const binary = looksBinary(bytes);
  // Scratch lives inside the store folder: text items lose their credentials like every write.
  // Binary items are kept as they are (the secret rules read text); docs/agents.md says so.
  let redacted = 0;
  if (!binary) {
    const r = redactSecrets(Buffer.from(bytes).toString('utf8'));
    if (r.redactions.length) {
      bytes = Buffer.from(r.text, 'utf8');
      redacted = r.redactions.length;
    }
  }
  // A file of the store is memory text: what the scanner flags in it is withheld here as memory_get
  // withholds it, or `read` would hand an agent the passage memory_get keeps back.
  let withheld = 0;
  if (!binary && storeFile !== null) {
    const w = await withholdForAgent(ctx, Buffer.from(bytes).toString('utf8'), { path: storeFile });
    if (w.passages.length) {
      bytes = Buffer.from(w.text, 'utf8');
      withheld = w.passages.length;
    }
  }
  const id = newItemId(ctx.now());
  // The title and tool name are kept in the metadata file: they lose their credentials too.
  const title = redactSecrets(input.title.trim());
  const sourceTool = input.sourceTool === undefined ? undefined : redactSecrets(input.sourceTool);
  redacted += title.redactions.length + (sourceTool?.redactions.length ?? 0);
  const meta: SessionItemMeta = {
    id,
    title: title.text || 'untitled',
    file_type: fileType,
    // Milliseconds kept: list orders by it, and several items often arrive within one second.
    created_at: ctx.now().toISOString(),
    size: bytes.length,
    source_tool: sourceTool?.text ?? null,
    summary: summarize(bytes, { binary, fileType }),
    binary,
    ...(redacted ? { redacted } : {}),
    ...(withheld ? { withheld } : {}),
  };
  const dir = await privateDir(ctx, input.session);
  await atomicWriteFile(path.join(dir, `mem_${id}.${fileType}`), bytes, { fsync: false, mode: PRIVATE_FILE });
  await atomicWriteFile(metaFile(dir, id), JSON.stringify(meta, null, 2) + '\n', {
    fsync: false,
    mode: PRIVATE_FILE,
  });
  return refOf(meta, input.session);
}

/** Session folders this process has swept of what dead writers left. */
const swept = new Set<string>();

/**
 * The session's folder, created 0700 (its parent .cairn/sessions too). The first write there in a
 * process removes what writers killed mid-write left (no item is written twice, so no write of the
 * same file would): their temporary files, their items whose metadata never came.
 */
async function privateDir(ctx: OpContext, session: string): Promise<string> {
  const dir = await sessionDir(ctx, session);
  await makeDir(dir, 0o700);
  if (!swept.has(dir)) {
    swept.add(dir);
    await removeLeftovers(dir, 0);
  }
  return dir;
}

/**
 * An item's metadata, or null when there is none or it is not one Cairn wrote: the file names
 * taken from it (`mem_<id>.<file_type>`) must name this item in this folder. Anything that can
 * write `.cairn/` (an agent's file tools; a tracked .cairn is not used at all, store/cairn-dir.ts)
 * could otherwise point them elsewhere, and the expired-items clean-up `cairn mcp` runs at start
 * removed that file.
 */
async function readMeta(dir: string, id: string): Promise<SessionItemMeta | null> {
  let meta: Partial<SessionItemMeta> | null;
  try {
    meta = JSON.parse(readNoFollow(metaFile(dir, id))?.toString('utf8') ?? '') as Partial<SessionItemMeta>;
  } catch {
    return null;
  }
  const own =
    typeof meta === 'object' &&
    meta !== null &&
    meta.id === id &&
    typeof meta.file_type === 'string' &&
    /^[a-z0-9]{1,10}$/.test(meta.file_type) &&
    typeof meta.created_at === 'string';
  return own ? (meta as SessionItemMeta) : null;
}

/** An item's bytes, never through a link. */
function readItem(dir: string, meta: SessionItemMeta): Buffer {
  const bytes = readNoFollow(path.join(dir, `mem_${meta.id}.${meta.file_type}`));
  if (!bytes)
    throw new CairnError('NOT_FOUND', `memoryId: item ${meta.id} has no content`, { field: 'memoryId' });
  return bytes;
}

async function requireMeta(
  ctx: OpContext,
  session: string,
  id: string,
): Promise<{ dir: string; meta: SessionItemMeta }> {
  assertItemId(id);
  const dir = await sessionDir(ctx, session);
  const meta = await readMeta(dir, id);
  if (!meta)
    throw new CairnError('NOT_FOUND', `memoryId: no item ${id} in session ${session}`, {
      field: 'memoryId',
    });
  return { dir, meta };
}

export interface ReadItemResult {
  item: SessionItemRef;
  /** UTF-8 text, or base64 for binary items. */
  content: string;
  encoding: 'utf8' | 'base64';
  /** Offset and length of the returned part, in bytes. */
  offset: number;
  length: number;
  truncated: boolean;
  /** Bytes after the returned part. */
  remaining: number;
  /** When bytes remain: the offset and length to read next. */
  next?: { offset: number; length: number };
  note?: string;
}

/** Bytes to drop from the end of `part` so it does not stop inside a UTF-8 character. */
function splitCharBytes(part: Uint8Array): number {
  // Walk back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  let back = 0;
  while (back < Math.min(3, part.length) && (part[part.length - 1 - back] & 0xc0) === 0x80) back++;
  if (back === part.length) return 0;
  const lead = part[part.length - 1 - back];
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return size > back + 1 ? back + 1 : 0;
}

/** Reads a byte range of an item (default: from the start, up to MAX_READ). */
export async function readSessionItem(
  ctx: OpContext,
  input: { session: string; id: string; offset?: number; length?: number },
): Promise<ReadItemResult> {
  const { dir, meta } = await requireMeta(ctx, input.session, input.id);
  const bytes = readItem(dir, meta);
  const offset = Math.min(Math.max(0, input.offset ?? 0), bytes.length);
  const wanted = Math.min(input.length ?? MAX_READ, MAX_READ);
  let part = bytes.subarray(offset, Math.min(bytes.length, offset + wanted));
  // A text window ends on a whole character (the next one starts there), unless that leaves nothing.
  if (!meta.binary && offset + part.length < bytes.length) {
    const drop = splitCharBytes(part);
    if (drop < part.length) part = part.subarray(0, part.length - drop);
  }
  const end = offset + part.length;
  const truncated = end < bytes.length;
  const notes: string[] = [];
  if (meta.binary) notes.push(`binary ${meta.file_type} content, base64-encoded; decode it to get the bytes`);
  if (truncated)
    notes.push(`bytes ${offset}-${end} of ${bytes.length}; read on with offset ${end}, length ${wanted}`);
  return {
    item: refOf(meta, input.session),
    content: meta.binary ? Buffer.from(part).toString('base64') : Buffer.from(part).toString('utf8'),
    encoding: meta.binary ? 'base64' : 'utf8',
    offset,
    length: part.length,
    truncated,
    remaining: bytes.length - end,
    ...(truncated ? { next: { offset: end, length: wanted } } : {}),
    ...(notes.length ? { note: notes.join('; ') } : {}),
  };
}

/** The items of one session, oldest first. */
export async function listSessionItems(ctx: OpContext, session: string): Promise<SessionItemRef[]> {
  const dir = await sessionDir(ctx, session);
  const names = await readdir(dir).catch(() => [] as string[]);
  const metas: SessionItemMeta[] = [];
  for (const name of names) {
    const m = /^mem_([a-f0-9]+)_metadata\.json$/.exec(name);
    const meta = m ? await readMeta(dir, m[1]) : null;
    if (meta) metas.push(meta);
  }
  return metas
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
    .map((m) => refOf(m, session));
}

export interface CleanupInput {
  session?: string;
  /** Remove this one item of `session`. */
  id?: string;
  /** Remove items older than this many days in every session (default config.sessions.maxAgeDays). */
  expired?: boolean;
}

/** Removes one item, a whole session, or every expired item; returns what went. */
export async function cleanupSessionItems(
  ctx: OpContext,
  input: CleanupInput,
): Promise<{ removed: SessionItemRef[] }> {
  if (input.id !== undefined) {
    const session = input.session ?? '';
    const { dir, meta } = await requireMeta(ctx, session, input.id);
    // The metadata first: killed between the two, the item is gone from the listing and its data
    // file is one whose metadata never came, which removeLeftovers sweeps.
    await rm(metaFile(dir, meta.id), { force: true });
    await rm(path.join(dir, `mem_${meta.id}.${meta.file_type}`), { force: true });
    return { removed: [refOf(meta, session)] };
  }
  if (!input.expired && input.session !== undefined) {
    const removed = await listSessionItems(ctx, input.session);
    const dir = await sessionDir(ctx, input.session);
    // Every metadata first, as for one item (a recursive removal takes the files in any order).
    for (const item of removed) await rm(metaFile(dir, item.id), { force: true });
    await rm(dir, { recursive: true, force: true });
    return { removed };
  }
  const cutoff = ctx.now().getTime() - ctx.store.config.sessions.maxAgeDays * 86_400_000;
  const removed: SessionItemRef[] = [];
  for (const session of await readdir(await sessionsRoot(ctx)).catch(() => [] as string[])) {
    try {
      assertSessionName(session);
    } catch {
      continue; // not ours
    }
    for (const item of await listSessionItems(ctx, session)) {
      if (Date.parse(item.created_at) >= cutoff) continue;
      await cleanupSessionItems(ctx, { session, id: item.id });
      removed.push(item);
    }
    await removeLeftovers(await sessionDir(ctx, session), cutoff);
  }
  return { removed };
}

/**
 * What a process killed mid-write left in a session's folder: a temporary file, or an item whose
 * metadata never came (it is written second) or went (it is removed first), at once when its writer
 * is dead; any of them once
 * older than `cutoff` (an older version's item names no writer). A newer one of a live writer may
 * be a write under way.
 */
async function removeLeftovers(dir: string, cutoff: number): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const item = /^mem_([a-f0-9]+)\.[a-z0-9]{1,10}$/.exec(name);
    const temp = /^\.mem_[a-f0-9]+[._].*\.tmp$/.test(name);
    if (!temp && !item) continue;
    const writer = item ? writerOf(item[1]) : null;
    const file = path.join(dir, name);
    const dead = temp ? isDeadTemp(file) : writer !== null && isDeadWriter(writer, file);
    const st = await lstat(file).catch(() => null);
    if (!st?.isFile() || !(st.mtimeMs < cutoff || dead)) continue;
    // Read last (a session may hold many items): an item with its metadata is a whole one.
    if (item && (await readMeta(dir, item[1])) !== null) continue;
    await rm(file, { force: true });
  }
}

export interface PromoteInput {
  session: string;
  id: string;
  topic?: string;
  agentName?: string;
  origin?: Origin;
  confidence?: number;
}

/** Turns a text item into a memory through storeMemory: governance decides active or candidate. */
export async function promoteSessionItem(ctx: OpContext, input: PromoteInput): Promise<StoreResult> {
  const { dir, meta } = await requireMeta(ctx, input.session, input.id);
  if (meta.binary) {
    throw new CairnError(
      'INVALID_REQUEST',
      'memoryId: a binary item cannot become a memory; store a text summary of it',
      {
        field: 'memoryId',
      },
    );
  }
  const text = readItem(dir, meta).toString('utf8').trim();
  if (text.length > LIMITS.context) {
    throw new CairnError(
      'INVALID_REQUEST',
      `memoryId: the item is ${text.length} characters and a memory's context holds ${LIMITS.context}; ` +
        'read it, summarize it and call memory_store',
      { field: 'memoryId' },
    );
  }
  return storeMemory(
    ctx,
    {
      topic: (input.topic ?? meta.title).slice(0, LIMITS.topic),
      context: text,
      origin: input.origin,
      confidence: input.confidence,
      agentName: input.agentName,
      references: [
        `session item ${input.session}/${meta.id}${meta.source_tool ? ` from ${meta.source_tool}` : ''}`,
      ],
      metadata: { sessionId: input.session },
    },
    { channel: 'agent', command: 'memory_manager' },
  );
}
