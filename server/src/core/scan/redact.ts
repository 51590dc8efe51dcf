// Secrets never enter git: every write path replaces a detected credential with a visible marker
// before anything is rendered, hashed or committed, and says so in its answer (docs/governance.md).
import { findSecretValues } from './secret-rules.js';

export interface Redaction {
  /** Rule code, e.g. `secret/aws-access-key`. */
  code: string;
  /** 0-based line of the value in the text it was cut from. */
  line: number;
}

/** What replaces a credential: `[redacted: aws-access-key]`. */
export function redactionMarker(code: string): string {
  return `[redacted: ${code.replace(/^secret\//, '')}]`;
}

/** Replaces every credential value the secret rules find; the text is unchanged when there is none. */
export function redactSecrets(text: string): { text: string; redactions: Redaction[] } {
  const spans = findSecretValues(text);
  if (spans.length === 0) return { text, redactions: [] };
  let out = '';
  let at = 0;
  const redactions: Redaction[] = [];
  for (const s of spans) {
    out += text.slice(at, s.start) + redactionMarker(s.code);
    redactions.push({ code: s.code, line: countNewlines(text, 0, s.start) });
    at = s.end;
  }
  return { text: out + text.slice(at), redactions };
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/**
 * Redacts every string inside a JSON-like value (objects, arrays), reporting the path of each field
 * that held a secret (`context`, `decisions[1]`, `triples[0].o`).
 */
export function redactDeep<T>(
  value: T,
  path = '',
): { value: T; redacted: { field: string; code: string }[] } {
  const redacted: { field: string; code: string }[] = [];
  const walk = (v: unknown, at: string): unknown => {
    if (typeof v === 'string') {
      const r = redactSecrets(v);
      for (const x of r.redactions) redacted.push({ field: at || 'value', code: x.code });
      return r.text;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, `${at}[${i}]`));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = walk(item, at ? `${at}.${k}` : k);
      return out;
    }
    return v;
  };
  const out = walk(value, path) as T;
  return { value: redacted.length ? out : value, redacted };
}
