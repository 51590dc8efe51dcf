// `cairn check`: the language server's rules, headless, over the store's files (as checked out) or
// only the files a branch changes against a base branch, for CI on pull requests.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import {
  cairnTrackedProblem,
  checkWorkspace,
  isMemoryPath,
  isStoreFilePath,
  parseStoreFile,
  symlinkProblem,
  WorkspaceModel,
} from '../core/rules/index.js';
import { deriveStatuses } from '../core/status.js';
import type { ParsedMemory, Problem } from '../core/types.js';
import { CairnError } from '../core/errors.js';
import { openCairnDir } from '../store/cairn-dir.js';
import { findStoreLinks, readStoreEntry } from '../store/safe-fs.js';
import type { OpContext } from './context.js';
import { formatFindings, type CheckFinding, type CheckFormat } from './check-format.js';
import { mainTip, openCandidates, rejectedTags } from './read.js';
import { injectionDetector, injectionModelProblem } from '../store/injection-model.js';

export type { CheckFinding, CheckFormat } from './check-format.js';

export interface CheckOptions {
  /** Check only the files changed on HEAD since it forked from this branch (e.g. `main`). */
  changed?: string;
  format: CheckFormat;
}

export interface CheckResult {
  findings: CheckFinding[];
  /** Store files checked. */
  checked: string[];
  /** The report in the requested format. */
  output: string;
  /** 1 when any finding is an error, else 0. */
  exitCode: number;
  /** Why the learned injection detector did not run (missing or damaged weights); absent when it ran. */
  degraded?: string;
}

/**
 * The store's memory files as checked out, never read through a symbolic link, and findings about
 * the store's paths themselves: links (store/symlink) and a .cairn that git tracks.
 */
async function readStore(ctx: OpContext): Promise<{ docs: ParsedMemory[]; pathFindings: CheckFinding[] }> {
  const root = ctx.store.root;
  const names: string[] = [];
  for (const dir of ['memories', 'daily']) {
    for (const name of (await readdir(path.join(root, dir)).catch(() => [] as string[])).sort())
      names.push(`${dir}/${name}`);
  }
  if ((await readdir(root)).includes('MEMORY.md')) names.push('MEMORY.md');
  const docs: ParsedMemory[] = [];
  for (const rel of names.filter(isStoreFilePath)) {
    const entry = readStoreEntry(root, rel);
    if (entry.kind === 'file') docs.push(parseStoreFile(entry.bytes.toString('utf8'), rel));
  }
  const links = findStoreLinks(root);
  const pathFindings = links.map((l) => toFinding(l.at, symlinkProblem(l.at, l.target)));
  const cairn = await openCairnDir(root, ctx.store.repo);
  const tracked = cairn.problem?.match(/^git tracks (.+)$/)?.[1];
  if (tracked && !links.some((l) => l.at === tracked))
    pathFindings.push(toFinding(tracked, cairnTrackedProblem(tracked)));
  return { docs, pathFindings };
}

/** Store-relative files changed on HEAD since the merge base with `base`. */
async function changedFiles(ctx: OpContext, base: string): Promise<Set<string>> {
  const { repo, prefix } = ctx.store;
  const [head, baseTip] = await Promise.all([repo.resolve('HEAD'), repo.resolve(base)]);
  if (!head)
    throw new CairnError(
      'NOT_FOUND',
      'HEAD has no commit: commit the memories first, then run `cairn check --changed`',
    );
  if (!baseTip)
    throw new CairnError(
      'NOT_FOUND',
      `no branch "${base}": fetch it first (e.g. \`git fetch origin ${base}:${base}\`) or pass another --changed`,
    );
  const fork = await repo.mergeBase(head, baseTip);
  const out = new Set<string>();
  for (const d of await repo.diff(fork, head)) {
    if (d.status !== 'deleted' && d.path.startsWith(prefix)) out.add(d.path.slice(prefix.length));
  }
  return out;
}

/**
 * Runs every rule over the store and formats the findings like a compiler (`text`), as JSON or as
 * SARIF 2.1.0. Files on disk are treated as the main branch (what a pull request proposes to make
 * true); open candidate branches and rejected tags come from git.
 */
export async function checkStore(ctx: OpContext, opts: CheckOptions): Promise<CheckResult> {
  const { store } = ctx;
  const { docs, pathFindings } = await readStore(ctx);
  const tip = await mainTip(store);
  const candidates = await openCandidates(store, tip);
  const rejected = (await rejectedTags(store)).map((t) => t.id);
  const memories = docs.filter((d) => isMemoryPath(d.path));
  const statuses = deriveStatuses({
    main: memories.map((d) => ({
      id: idOfPath(d.path),
      supersedes: d.frontMatter.supersedes,
      superseded_by: d.frontMatter.superseded_by,
    })),
    openCandidates: candidates.map((c) => c.id),
    rejected,
  });
  const model = new WorkspaceModel();
  for (const d of memories) model.upsert(d, statuses.get(idOfPath(d.path)) ?? { status: 'active' });
  const onDisk = new Set(memories.map((d) => idOfPath(d.path)));
  for (const c of candidates) {
    if (onDisk.has(c.id)) continue;
    const text = await store.repo.readText(c.tip, `${store.prefix}memories/${c.id}.md`);
    if (text !== null) model.upsert(parseStoreFile(text, `memories/${c.id}.md`), { status: 'candidate' });
  }
  for (const id of rejected)
    if (!onDisk.has(id) && !model.memories.has(id)) model.memories.set(id, rejectedStub(id));

  const only = opts.changed ? await changedFiles(ctx, opts.changed) : null;
  const selected = only ? docs.filter((d) => only.has(d.path)) : docs;
  const inChange = (p: string) => !only || [...only].some((c) => c === p || c.startsWith(`${p}/`));
  const findings = [
    ...pathFindings.filter((f) => inChange(f.path)),
    ...checkWorkspace(selected, model, { detector: injectionDetector(store.config) }).flatMap((f) =>
      f.problems.map((p) => toFinding(f.path, p)),
    ),
  ];
  const exitCode = findings.some((f) => f.severity === 'error') ? 1 : 0;
  const checked = selected.map((d) => d.path);
  const degraded = injectionModelProblem() ?? undefined;
  return {
    findings,
    checked,
    exitCode,
    ...(degraded ? { degraded } : {}),
    output: formatFindings(findings, {
      format: opts.format,
      repoPrefix: store.prefix,
      checked: checked.length,
      degraded,
    }),
  };
}

function idOfPath(p: string): string {
  return p.replace(/^memories\//, '').replace(/\.md$/, '');
}

/** A rejected memory not on disk: known to references (as rejected), nothing else. */
function rejectedStub(id: string) {
  return {
    id,
    path: `memories/${id}.md`,
    status: 'rejected' as const,
    supersedes: [],
    title: id,
    triples: [],
    contentHash: '',
  };
}

function toFinding(file: string, p: Problem): CheckFinding {
  return {
    path: file,
    range: p.range,
    severity: p.severity,
    code: p.code,
    message: p.message,
    related: p.related ?? [],
    ...(p.relatedOmitted ? { relatedOmitted: p.relatedOmitted } : {}),
  };
}
