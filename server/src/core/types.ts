// The memory model shared by every layer. Plain data only: no I/O, no protocol types.

export const MEMORY_KINDS = ['fact', 'decision', 'preference', 'summary', 'note', 'procedure'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export const ORIGINS = ['human', 'conversation', 'background', 'import'] as const;
export type Origin = (typeof ORIGINS)[number];

/** Derived from git, never stored in a file (see docs/governance.md). */
export type MemoryStatus = 'active' | 'superseded' | 'candidate' | 'rejected';

export const MEMORY_ACTIONS = [
  'add',
  'update',
  'supersede',
  'accept',
  'reject',
  'feedback',
  'correct',
  'append',
  'forget',
  'import',
  'undo',
  'allow',
  'refresh',
] as const;
export type MemoryAction = (typeof MEMORY_ACTIONS)[number];

/** 0-based line, character in UTF-16 code units: the same convention as LSP, so no layer converts. */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface RelatedLocation {
  path: string;
  range: Range;
  message: string;
}

/** A finding about a file: parse problems, schema problems, scanner findings, rule findings. */
export interface Problem {
  /** Stable code, e.g. `yaml-syntax`, `id-mismatch`, `injection/override`. */
  code: string;
  message: string;
  severity: Severity;
  range: Range;
  /** Other places the finding involves; at most a few dozen (see core/rules/group.ts). */
  related?: RelatedLocation[];
  /** How many more related places there were than `related` lists. */
  relatedOmitted?: number;
  /**
   * Findings with the same group key describe the same set of memories (a group of exact duplicates,
   * facts that contradict each other): `cairn check` reports the group once.
   */
  group?: string;
}

/** A knowledge-graph fact. `from`/`until` bound the time the fact held (ISO dates), both optional. */
export interface Triple {
  s: string;
  p: string;
  o: string;
  from?: string;
  until?: string;
}

export interface MemorySource {
  agent?: string;
  origin?: Origin;
}

/** The typed view of a memory's front matter. Unknown keys stay in the YAML document untouched. */
export interface FrontMatter {
  id: string;
  title: string;
  kind: MemoryKind;
  created?: string;
  updated?: string;
  tags: string[];
  plan?: string;
  session?: string;
  source: MemorySource;
  confidence?: number;
  supersedes: string[];
  superseded_by?: string;
  triples: Triple[];
  /** Unknown top-level keys and their values, when there are any (the file keeps them as written). */
  extra?: Record<string, unknown>;
}

/** The conversation-summary shape of a memory body. */
export interface MemoryBody {
  context: string;
  decisions: string[];
  rationale: string[];
  openQuestions: string[];
  nextSteps: string[];
  references: string[];
}

/** A `[[id]]` occurrence in a file. */
export interface MemoryRef {
  id: string;
  range: Range;
}

export interface ParsedMemory {
  /** Store-relative path with forward slashes, e.g. `memories/redis-caching.md`. */
  path: string;
  text: string;
  frontMatter: FrontMatter;
  body: MemoryBody;
  refs: MemoryRef[];
  /** Range of each front-matter key's value, for diagnostics and navigation. */
  keyRanges: Record<string, Range>;
  /** 0-based line where the markdown body starts (after the closing `---`). */
  bodyStartLine: number;
  problems: Problem[];
}

/** A memory as an agent or person hands it in, before it becomes a file. */
export interface MemoryDraft {
  id: string;
  title: string;
  kind: MemoryKind;
  created: string;
  updated: string;
  tags: string[];
  plan?: string;
  session?: string;
  source: MemorySource;
  confidence?: number;
  supersedes: string[];
  triples: Triple[];
  body: MemoryBody;
  /** Extra front-matter keys to keep (unknown keys from a payload's metadata). */
  extra?: Record<string, unknown>;
}
