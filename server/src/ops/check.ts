// `cairn check`: the language server's rules, headless, over the store's files (as checked out) or
// only the files a branch changes against a base branch, for CI on pull requests. The same
// workspace model as the language server (ops/workspace): same files walked, same statuses, same
// rules, so both report the same findings.
import { cairnTrackedProblem, symlinkProblem } from '../core/rules/index.js';
import type { Problem } from '../core/types.js';
import { CairnError } from '../core/errors.js';
import { openCairnDir } from '../store/cairn-dir.js';
import type { OpContext } from './context.js';
import { formatFindings, type CheckFinding, type CheckFormat } from './check-format.js';
import { checkFiles, StoreWorkspace } from './workspace/index.js';
import { injectionModelProblem, shippedInjectionModel } from '../store/injection-model.js';
import { parseConfig } from '../core/config.js';
import { describeSettingChange, settingRange, settingsChanges } from '../core/settings-changes.js';
import { CONFIG_FILE, repoPath } from '../store/store.js';
import { readStoreFile } from '../store/safe-fs.js';
import { ATTRIBUTES_FILE, attributesProblems } from './check-attributes.js';
import { runGit } from '../store/git/git-cli.js';

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

/** Findings about the store's paths themselves: links (store/symlink) and a .cairn that git tracks. */
async function pathFindings(ctx: OpContext, ws: StoreWorkspace): Promise<CheckFinding[]> {
  const links = ws.storeLinks;
  const out = links.map((l) => toFinding(l.at, symlinkProblem(l.at, l.target)));
  const cairn = await openCairnDir(ctx.store.root, ctx.store.repo);
  const tracked = cairn.problem?.match(/^git tracks (.+)$/)?.[1];
  if (tracked && !links.some((l) => l.at === tracked))
    out.push(toFinding(tracked, cairnTrackedProblem(tracked)));
  return out;
}

/**
 * The commit `--changed` names: a branch, tag or commit id as Cairn's own git layer reads it, else
 * any revision the git CLI reads (`HEAD~1`, `origin/main^`); null when it names no commit.
 */
export async function resolveRevision(ctx: OpContext, rev: string): Promise<string | null> {
  const oid = await ctx.store.repo.resolve(rev);
  if (oid) return oid;
  // A value starting with '-' is never given to git, where it would be an option (--output=FILE).
  if (rev.startsWith('-')) return null;
  const r = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], {
    cwd: ctx.store.root,
  });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Store-relative files changed on HEAD since the merge base with `base`, and that merge base. */
async function changedFiles(
  ctx: OpContext,
  base: string,
): Promise<{ files: Set<string>; fork: string | null; attributesChanged: boolean }> {
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
  let attributesChanged = false;
  for (const d of await repo.diff(fork, head)) {
    // Any .gitattributes on the way to the store's files (the repository's root one included).
    if (d.path.split('/').pop() === ATTRIBUTES_FILE) attributesChanged = true;
    if (d.status !== 'deleted' && d.path.startsWith(prefix)) out.add(d.path.slice(prefix.length));
  }
  return { files: out, fork, attributesChanged };
}

/**
 * A change to cairn.yaml is a change to governance: each changed setting is a finding on its line,
 * an error when it lets more through without a person (agent writes that skip review, a detector
 * that reports less), and cairn.yaml's own invalid values are errors.
 */
async function settingsFindings(ctx: OpContext, fork: string | null): Promise<CheckFinding[]> {
  const { store } = ctx;
  const text = readStoreFile(store.root, CONFIG_FILE)?.toString('utf8') ?? '';
  const before = fork ? await store.repo.readText(fork, repoPath(store, CONFIG_FILE)) : null;
  const changes = settingsChanges(
    parseConfig(before ?? '').config,
    store.config,
    shippedInjectionModel()?.header.threshold ?? null,
  );
  return [
    ...store.configProblems.map((p) => toFinding(CONFIG_FILE, p)),
    ...changes.map((c) =>
      toFinding(CONFIG_FILE, {
        code: c.weakens ? 'store/settings-weakened' : 'store/settings-changed',
        severity: c.weakens ? 'error' : 'warning',
        message: c.weakens
          ? `this change weakens governance: ${describeSettingChange(c)}. Merge it only if a person means that`
          : `this change sets ${describeSettingChange(c)}`,
        range: settingRange(text, c.key),
      }),
    ),
  ];
}

/**
 * Runs every rule over the store and formats the findings like a compiler (`text`), as JSON or as
 * SARIF 2.1.0. Files on disk are treated as the main branch (what a pull request proposes to make
 * true); open candidate branches and rejected tags come from git.
 */
export async function checkStore(ctx: OpContext, opts: CheckOptions): Promise<CheckResult> {
  const { store } = ctx;
  const ws = new StoreWorkspace({ root: store.root, store, keepParsed: true });
  await ws.load();
  await ws.refreshGit();
  const change = opts.changed ? await changedFiles(ctx, opts.changed) : null;
  const only = change?.files ?? null;
  const onDisk = [...ws.files.values()].filter((f) => f.onDisk && !f.link).map((f) => f.rel);
  const selected = only ? onDisk.filter((rel) => only.has(rel)) : onDisk;
  const settingsChecked = change?.files.has(CONFIG_FILE) ?? false;
  const attributesChecked = change?.attributesChanged ?? false;
  const inChange = (p: string) => !only || [...only].some((c) => c === p || c.startsWith(`${p}/`));
  const findings = [
    ...(await pathFindings(ctx, ws)).filter((f) => inChange(f.path)),
    ...(await checkFiles(ws, selected)).flatMap((f) => f.problems.map((p) => toFinding(f.path, p))),
    ...(settingsChecked ? await settingsFindings(ctx, change!.fork) : []),
    ...(attributesChecked
      ? (await attributesProblems(ctx, change!.fork)).map((p) => toFinding(ATTRIBUTES_FILE, p))
      : []),
  ];
  const checked = [
    ...selected,
    ...(settingsChecked ? [CONFIG_FILE] : []),
    ...(attributesChecked ? [ATTRIBUTES_FILE] : []),
  ];
  const exitCode = findings.some((f) => f.severity === 'error') ? 1 : 0;
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
