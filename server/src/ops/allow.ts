// Allowances: a person lets agents read what the scanner flags in one memory, rule by rule. They
// live in git and nowhere else: `Memory-Allow` on an accept merge (`cairn accept ID --allow RULE`),
// or an empty `Memory-Action: allow` commit on main for a memory that became active another way (a
// pull request, a hand commit). ops/history.ts reads them back; a reverted one no longer counts.
import { CairnError } from '../core/errors.js';
import { assertSafeId, REASON_MAX, writableText } from '../core/payload.js';
import { cairnCommand } from '../core/shell-arg.js';
import { formatCommitMessage } from '../core/trailers.js';
import { flaggedFindings } from '../core/withhold.js';
import { memoryPath, repoPath } from '../store/store.js';
import { appendAudit } from './audit.js';
import { authorFor, isoNow, type OpContext } from './context.js';
import { memoryHistories } from './history.js';
import { CANDIDATE_PREFIX, requireMainTip } from './read.js';
import { injectionDetector } from '../store/injection-model.js';

export interface FileFinding {
  /** Store-relative path. */
  path: string;
  rule: string;
  line: number;
  message: string;
}

/** `["injection/override,secret/generic", "x"]` -> unique rule codes. */
export function ruleList(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(/[\s,]+/)).filter(Boolean))];
}

/**
 * What accepting flagged content needs: every flagged rule named in `allow`, and nothing else. Returns
 * the rules to record on the merge; refuses with NEEDS_ALLOWANCE naming each finding and the command.
 */
export function checkAllowance(
  id: string,
  findings: readonly FileFinding[],
  allow: readonly string[],
): string[] {
  const flagged = [...new Set(findings.map((f) => f.rule))];
  const stray = allow.filter((r) => !flagged.includes(r));
  if (stray.length)
    throw new CairnError(
      'INVALID_REQUEST',
      `--allow ${stray.join(',')}: "${id}" has no such finding` +
        (flagged.length ? `; its flagged rules: ${flagged.join(', ')}` : '; nothing in it is flagged'),
      { field: 'allow' },
    );
  const missing = flagged.filter((r) => !allow.includes(r));
  if (missing.length) {
    const command = cairnCommand('accept', id, `--allow ${flagged.join(',')}`);
    throw new CairnError(
      'NEEDS_ALLOWANCE',
      `"${id}" holds text the scanner flags; accepting it lets agents read that text verbatim:\n` +
        findingLines(findings).join('\n') +
        `\nIf a person has read it and agents may see it, accept with: ${command}` +
        `\n(or reject it: ${cairnCommand('reject', id, '--why TEXT')})`,
      { findings: findings.map((f) => ({ ...f })), missing, command },
    );
  }
  return flagged;
}

/**
 * One line per finding, a finding repeated on one line (three escape characters in it) said once
 * with its count: the same line three times read like a fault of the listing.
 */
function findingLines(findings: readonly FileFinding[]): string[] {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const line = `  ${f.path}:${f.line}: ${f.rule} ${f.message}`;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts].map(([line, n]) => (n > 1 ? `${line} (${n} times on this line)` : line));
}

export interface AllowResult {
  id: string;
  rules: string[];
  /** null when every rule was already allowed: nothing to record. */
  commit: string | null;
}

/** `cairn allow ID RULE...`: an empty commit on main that lets agents read those findings of ID. */
export async function allowFindings(
  ctx: OpContext,
  id: string,
  rules: readonly string[],
  why?: string,
): Promise<AllowResult> {
  const { store } = ctx;
  assertSafeId(id);
  // The reason goes into a commit: no control characters, no secrets (as every caller text).
  if (why !== undefined) why = writableText(why, 'why', REASON_MAX).text;
  const wanted = ruleList(rules);
  if (!wanted.length)
    throw new CairnError(
      'INVALID_REQUEST',
      'name the rules to allow, e.g. cairn allow ID injection/override',
      {
        field: 'rules',
      },
    );
  const res = await store.repo.withLock(async () => {
    const tip = await requireMainTip(store);
    const text = await store.repo.readText(tip, repoPath(store, memoryPath(id)));
    if (text === null) {
      const cand = await store.repo.resolve(`refs/heads/${CANDIDATE_PREFIX}${id}`);
      throw new CairnError(
        'NOT_FOUND',
        cand
          ? `"${id}" is a candidate: accept it with its allowances (${cairnCommand('accept', id, '--allow RULE,...')})`
          : `no memory "${id}" on ${store.config.mainBranch}; \`cairn list\` shows the ids`,
      );
    }
    const flagged = [
      ...new Set(flaggedFindings(text, { detector: injectionDetector(store.config) }).map((f) => f.rule)),
    ];
    const stray = wanted.filter((r) => !flagged.includes(r));
    if (stray.length)
      throw new CairnError(
        'INVALID_REQUEST',
        `"${id}" has no ${stray.join(', ')} finding` +
          (flagged.length ? `; its flagged rules: ${flagged.join(', ')}` : '; nothing in it is flagged'),
        { field: 'rules' },
      );
    const already = (await memoryHistories(store, tip)).get(id)?.allowed ?? [];
    if (wanted.every((r) => already.includes(r))) return { id, rules: wanted, commit: null };
    const commit = await store.repo.commit({
      branch: store.config.mainBranch,
      expectedTip: tip,
      changes: [],
      allowEmpty: true,
      author: authorFor(ctx),
      message: formatCommitMessage({
        action: 'allow',
        id,
        summary: `agents may read what ${wanted.join(', ')} flags`,
        details: why?.trim() || undefined,
        origin: 'human',
        extra: {
          'Memory-Allow': wanted.join(', '),
          'Reviewed-By': `${ctx.author.name} <${ctx.author.email}>`,
        },
      }),
    });
    return { id, rules: wanted, commit };
  });
  await appendAudit(store, {
    timestamp: isoNow(ctx),
    command: 'allow',
    agentName: null,
    topicDigest: null,
    result: res.commit ? 'committed' : 'unchanged',
    errorCode: null,
    id,
  });
  return res;
}
