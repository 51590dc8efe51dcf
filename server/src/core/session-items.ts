// Session scratch items (memory_manager): names, content sniffing and the reference an answer
// carries instead of the content. Pure; server/src/ops/session-memory.ts does the file I/O.
import { CairnError } from './errors.js';
import { redactSecrets } from './scan/redact.js';

/** Metadata kept beside each item as `mem_<id>_metadata.json`. */
export interface SessionItemMeta {
  id: string;
  title: string;
  /** The file extension without the dot ("txt", "json", "png"), also the stored file's extension. */
  file_type: string;
  created_at: string;
  size: number;
  source_tool: string | null;
  summary: string;
  binary: boolean;
  /** Secrets replaced by `[redacted: <rule>]` when the item was stored (text items only). */
  redacted?: number;
  /** Passages the scanner flags, withheld when a file of the store was stored (as memory_get does). */
  withheld?: number;
}

/** What answers carry instead of the content. */
export type SessionItemRef = Pick<
  SessionItemMeta,
  'id' | 'title' | 'summary' | 'file_type' | 'size' | 'redacted' | 'withheld'
> & {
  session: string;
  created_at: string;
  binary: boolean;
};

const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const ITEM_ID = /^[a-f0-9]{8,32}$/;

/** A session name is one folder name: no separators, no `..`, no leading dot. */
export function assertSessionName(name: string): void {
  if (!SESSION_NAME.test(name) || name.includes('..')) {
    throw new CairnError(
      'INVALID_REQUEST',
      `session: "${name}" is not a valid session name; use letters, digits, ".", "_" or "-" (up to 100), e.g. "build-logs"`,
      { field: 'session' },
    );
  }
  // The name is a folder under .cairn/sessions: a credential there would sit on disk as it is.
  if (redactSecrets(name).redactions.length) {
    throw new CairnError(
      'INVALID_REQUEST',
      'session: the name looks like a credential (a secret rule matches it), and it would name a folder ' +
        'on disk; use a plain name, e.g. "build-logs"',
      { field: 'session' },
    );
  }
}

export function assertItemId(id: string): void {
  if (!ITEM_ID.test(id)) {
    throw new CairnError(
      'INVALID_REQUEST',
      `memoryId: "${id}" is not a session item id; list shows the ids`,
      {
        field: 'memoryId',
      },
    );
  }
}

/** The extension of a file name, lower case and safe as a file name part; "bin" when it has none. */
export function fileTypeOf(fileName: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(fileName);
  return m ? m[1].toLowerCase() : 'bin';
}

/** Binary when the first 8 KB hold a NUL byte or are not valid UTF-8. */
export function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(
      head.length < bytes.length ? trimPartialUtf8(head) : head,
    );
    return false;
  } catch {
    return true;
  }
}

/** Drops an incomplete multi-byte sequence at the end of a prefix, so a cut does not look binary. */
function trimPartialUtf8(b: Uint8Array): Uint8Array {
  let i = b.length - 1;
  let back = 0;
  while (i >= 0 && back < 3 && (b[i] & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i >= 0 && b[i] >= 0xc0) return b.subarray(0, i);
  return b;
}

/** A one-line summary: the first words of text, or what a binary item is. */
export function summarize(content: Uint8Array, opts: { binary: boolean; fileType: string }): string {
  if (opts.binary) return `binary ${opts.fileType} file, ${content.length} bytes`;
  const text = new TextDecoder().decode(content.subarray(0, 4096));
  const all = new TextDecoder().decode(content);
  const lines = all.split('\n').length - (all.endsWith('\n') ? 1 : 0);
  const head = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `${lines} line${lines === 1 ? '' : 's'}: ${head}${text.length > 200 ? '...' : ''}`;
}

export function refOf(meta: SessionItemMeta, session: string): SessionItemRef {
  return {
    id: meta.id,
    title: meta.title,
    summary: meta.summary,
    file_type: meta.file_type,
    size: meta.size,
    session,
    created_at: meta.created_at,
    binary: meta.binary,
    ...(meta.redacted ? { redacted: meta.redacted } : {}),
    ...(meta.withheld ? { withheld: meta.withheld } : {}),
  };
}
