// What a change to cairn.yaml does. The settings decide what reaches main without a person (the
// commit mode, the confidence floors, the origins that always go to review) and what the injection
// detector reports, so a proposal that changes them changes governance itself. Review and the
// pull-request check name each changed setting, and say plainly when it lets more through.
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { CairnConfig } from './config.js';
import type { Range } from './types.js';

export interface SettingChange {
  /** The setting's path in cairn.yaml, e.g. `governance.autoFloor`. */
  key: string;
  /** The effective values (defaults applied), as JSON. */
  from: string;
  to: string;
  /** What the change lets through that was held before; absent when it lets nothing more through. */
  weakens?: string;
}

const COMMIT_MODE_RANK = { manual: 0, selective: 1, aggressive: 2 } as const;
const MORE_ACTIVE = 'more agent writes become active without review';

/** Each setting Cairn reads, as a path into the config. */
function settingKeys(c: CairnConfig): string[] {
  const out: string[] = [];
  const walk = (v: unknown, at: string[]) => {
    if (v && typeof v === 'object' && !Array.isArray(v))
      for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
    else out.push(at.join('.'));
  };
  walk(c, []);
  return out;
}

function valueAt(c: CairnConfig, key: string): unknown {
  return key.split('.').reduce<any>((v, k) => (v == null ? undefined : v[k]), c);
}

function weakening(
  key: string,
  before: CairnConfig,
  after: CairnConfig,
  calibratedThreshold: number | null,
): string | undefined {
  switch (key) {
    case 'mainBranch':
      return 'decisions and memories are read from another branch; what a person decided on the old one no longer counts';
    case 'governance.commitMode':
      return COMMIT_MODE_RANK[after.governance.commitMode] > COMMIT_MODE_RANK[before.governance.commitMode]
        ? MORE_ACTIVE
        : undefined;
    case 'governance.autoFloor':
      return after.governance.autoFloor < before.governance.autoFloor ? MORE_ACTIVE : undefined;
    case 'governance.candidateOrigins': {
      const dropped = before.governance.candidateOrigins.filter(
        (o) => !after.governance.candidateOrigins.includes(o),
      );
      return dropped.length ? `writes from ${dropped.join(', ')} no longer always go to review` : undefined;
    }
    case 'scan.injection.threshold': {
      // Unset means the model's calibrated threshold; unknown (no model) compares as unset.
      const effective = (t: number | null) => t ?? calibratedThreshold;
      const [was, now] = [
        effective(before.scan.injection.threshold),
        effective(after.scan.injection.threshold),
      ];
      if (was === null || now === null) return 'the injection detector reports with another threshold';
      return now > was ? 'the injection detector reports fewer passages' : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The settings whose effective value differs between two configs, in the config's order.
 * `calibratedThreshold` is the injection model's own threshold (what an unset one means), if known.
 */
export function settingsChanges(
  before: CairnConfig,
  after: CairnConfig,
  calibratedThreshold: number | null = null,
): SettingChange[] {
  const out: SettingChange[] = [];
  for (const key of settingKeys(after)) {
    const [from, to] = [JSON.stringify(valueAt(before, key)), JSON.stringify(valueAt(after, key))];
    if (from === to) continue;
    const weakens = weakening(key, before, after, calibratedThreshold);
    out.push({ key, from, to, ...(weakens ? { weakens } : {}) });
  }
  return out;
}

/** One line for a person: `governance.autoFloor 0.8 -> 0.3 (more agent writes become active ...)`. */
export function describeSettingChange(c: SettingChange): string {
  const show = (v: string) => (v === 'null' ? '(unset)' : v);
  return `${c.key} ${show(c.from)} -> ${show(c.to)}${c.weakens ? ` (${c.weakens})` : ''}`;
}

/**
 * Where a setting is written in cairn.yaml's text: its deepest key present (a removed setting points
 * at its section, or at the first line).
 */
export function settingRange(text: string, key: string): Range {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  let node: unknown = doc.contents;
  let at: [number, number] | null = null;
  for (const part of key.split('.')) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && p.key.value === part);
    if (!pair || !isScalar(pair.key) || !pair.key.range) break;
    at = [pair.key.range[0], pair.key.range[1]];
    node = pair.value;
  }
  if (!at) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const pos = (offset: number) => {
    const p = lines.linePos(offset);
    return { line: p.line - 1, character: p.col - 1 };
  };
  return { start: pos(at[0]), end: pos(at[1]) };
}
