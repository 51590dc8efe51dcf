// cairn.yaml: the store's settings. Parsing never throws; unknown keys are kept for later versions.
import { parseDocument } from 'yaml';
import type { Origin, Problem } from './types.js';

export type CommitMode = 'selective' | 'manual' | 'aggressive';

export interface GovernanceConfig {
  /** selective: route by the rules below; manual: every agent write is a candidate; aggressive: only flagged writes are candidates. */
  commitMode: CommitMode;
  /** Writes with a confidence below this become candidates. */
  autoFloor: number;
  /** Writes with a confidence below this are dropped, with the reason logged. */
  reviewFloor: number;
  /** Origins whose writes always become candidates. */
  candidateOrigins: Origin[];
  /**
   * Set when cairn.yaml's governance could not be read as written (a YAML error, a wrong value):
   * what was wrong. Governance then fails closed: commitMode is manual, so every agent write is a
   * candidate until it is fixed, never routed by defaults the person did not choose.
   */
  unreadable?: string;
}

export interface SearchConfig {
  model: string;
  dtype: 'q8' | 'fp32';
  minScore: number;
  maxResults: number;
  maxTokens: number;
  halfLifeDays: number;
}

export interface ScanConfig {
  injection: {
    /**
     * Probability at or above which the learned detector reports a passage (injection/model);
     * null: the threshold calibrated with the model (docs/injection-model.md).
     */
    threshold: number | null;
  };
}

export interface CairnConfig {
  version: 1;
  mainBranch: string;
  governance: GovernanceConfig;
  search: SearchConfig;
  scan: ScanConfig;
  memoryMd: { maxChars: number };
  sessions: { maxAgeDays: number };
  /** `cairn sync` and `cairn propose`: the git remote the team shares. */
  sync: { remote: string };
  /**
   * `cairn learn`: an OpenAI-compatible endpoint on this machine (e.g. Ollama's
   * http://127.0.0.1:11434/v1) that may extract statements besides the rules; null: rules only.
   */
  learn: { endpoint: string | null; model: string };
}

export const DEFAULT_CONFIG: CairnConfig = {
  version: 1,
  mainBranch: 'main',
  governance: {
    commitMode: 'selective',
    autoFloor: 0.8,
    reviewFloor: 0.55,
    candidateOrigins: ['background', 'import'],
  },
  search: {
    model: 'Xenova/all-MiniLM-L6-v2',
    dtype: 'q8',
    minScore: 0.35,
    maxResults: 6,
    maxTokens: 2000,
    halfLifeDays: 180,
  },
  scan: { injection: { threshold: null } },
  memoryMd: { maxChars: 12_000 },
  sessions: { maxAgeDays: 7 },
  sync: { remote: 'origin' },
  learn: { endpoint: null, model: 'llama3.2' },
};

const ZERO = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function problem(message: string): Problem {
  return { code: 'config-invalid', message, severity: 'error', range: ZERO };
}

type Checker = (v: unknown) => boolean;
const isNumber01: Checker = (v) => typeof v === 'number' && v >= 0 && v <= 1;
const isPositive: Checker = (v) => typeof v === 'number' && v > 0;
const isString: Checker = (v) => typeof v === 'string' && v.length > 0;
// A remote's name, never a URL: the name is passed to git as an argument and builds ref names.
const isRemoteName: Checker = (v) =>
  typeof v === 'string' &&
  /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) &&
  !v.includes('..') &&
  !v.endsWith('.lock');

/**
 * An http(s) URL on this machine (localhost, 127.0.0.0/8, ::1) without credentials: the only kind
 * of address Cairn sends memory text to, so a committed cairn.yaml cannot send it elsewhere.
 */
export function isLoopbackUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Governance that could not be read as written: every agent write is reviewed (manual). */
function failClosed(config: CairnConfig, why: string): CairnConfig {
  config.governance.commitMode = 'manual';
  config.governance.unreadable = why.replace(/^cairn\.yaml: /, '').replace(/;.*$/, '');
  return config;
}

/**
 * Merges cairn.yaml over the defaults; wrong values are reported and replaced by the default,
 * except governance: a wrong value there, or a file that is not YAML, fails closed (failClosed).
 */
export function parseConfig(text: string): { config: CairnConfig; problems: Problem[] } {
  const problems: Problem[] = [];
  const config: CairnConfig = structuredClone(DEFAULT_CONFIG);
  const doc = parseDocument(text, { prettyErrors: false });
  for (const err of doc.errors) {
    const [line, col] = err.linePos?.[0] ? [err.linePos[0].line - 1, err.linePos[0].col - 1] : [0, 0];
    problems.push({
      code: 'config-yaml-syntax',
      message: `cairn.yaml: ${err.message.split('\n')[0]}`,
      severity: 'error',
      range: { start: { line, character: col }, end: { line, character: col + 1 } },
    });
  }
  if (doc.errors.length > 0) return { config: failClosed(config, problems[0].message), problems };
  const raw = (doc.toJS() ?? {}) as Record<string, any>;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const message = 'cairn.yaml must be a mapping';
    return { config: failClosed(config, message), problems: [problem(message)] };
  }

  const take = (
    section: Record<string, any> | undefined,
    target: Record<string, any>,
    key: string,
    ok: Checker,
    hint: string,
    prefix: string,
  ) => {
    if (!section || section[key] === undefined) return;
    if (ok(section[key])) target[key] = section[key];
    else
      problems.push(
        problem(
          `cairn.yaml: ${prefix}${key} must be ${hint}; ` +
            (prefix === 'governance.'
              ? 'every agent write is a candidate until it is fixed'
              : `using the default ${target[key] === null ? '(unset)' : JSON.stringify(target[key])}`),
        ),
      );
  };
  take(raw, config, 'mainBranch', isString, 'a branch name', '');
  const g = raw.governance;
  const beforeGovernance = problems.length;
  if (g !== undefined && g !== null && (typeof g !== 'object' || Array.isArray(g)))
    problems.push(problem('cairn.yaml: governance must be a mapping'));
  take(
    g,
    config.governance,
    'commitMode',
    (v) => ['selective', 'manual', 'aggressive'].includes(v as string),
    'selective, manual or aggressive',
    'governance.',
  );
  take(g, config.governance, 'autoFloor', isNumber01, 'a number from 0 to 1', 'governance.');
  take(g, config.governance, 'reviewFloor', isNumber01, 'a number from 0 to 1', 'governance.');
  take(
    g,
    config.governance,
    'candidateOrigins',
    (v) => Array.isArray(v) && v.every((o) => ['human', 'conversation', 'background', 'import'].includes(o)),
    'a list of origins',
    'governance.',
  );
  if (problems.length > beforeGovernance) failClosed(config, problems[beforeGovernance].message);
  const s = raw.search;
  take(s, config.search, 'model', isString, 'a model id', 'search.');
  take(s, config.search, 'dtype', (v) => v === 'q8' || v === 'fp32', 'q8 or fp32', 'search.');
  take(s, config.search, 'minScore', isNumber01, 'a number from 0 to 1', 'search.');
  take(s, config.search, 'maxResults', isPositive, 'a positive number', 'search.');
  take(s, config.search, 'maxTokens', isPositive, 'a positive number', 'search.');
  take(s, config.search, 'halfLifeDays', isPositive, 'a positive number', 'search.');
  take(
    raw.scan?.injection,
    config.scan.injection,
    'threshold',
    isNumber01,
    'a number from 0 to 1',
    'scan.injection.',
  );
  take(raw.memoryMd, config.memoryMd, 'maxChars', isPositive, 'a positive number', 'memoryMd.');
  take(raw.sessions, config.sessions, 'maxAgeDays', isPositive, 'a positive number', 'sessions.');
  take(raw.sync, config.sync, 'remote', isRemoteName, 'the name of a git remote', 'sync.');
  take(
    raw.learn,
    config.learn,
    'endpoint',
    isLoopbackUrl,
    'an http URL on this machine (localhost, 127.0.0.1 or ::1)',
    'learn.',
  );
  take(raw.learn, config.learn, 'model', isString, 'a model name', 'learn.');
  if (config.governance.reviewFloor > config.governance.autoFloor) {
    problems.push(
      problem(
        'cairn.yaml: governance.reviewFloor is above autoFloor; nothing can become active by confidence',
      ),
    );
  }
  return { config, problems };
}
