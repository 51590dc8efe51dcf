// The review page's API: one route, one operation (the same governance as the CLI's commands).
// To add a route: add an entry to ROUTES below ("METHOD /api/name": handler). A handler gets the
// chosen store's services, the query string and (for POST) the parsed JSON body, and returns what
// is sent back as JSON. Expected failures are CairnErrors; server.ts turns them into a status and
// `{ error: { code, message, data } }`. Inputs are checked here before they reach an operation.
import { codePointName } from '../core/control-chars.js';
import { CairnError } from '../core/errors.js';
import { isHiddenChar, lastOperand, shownShellArg } from '../core/shell-arg.js';
import { layout } from '../core/graph-draw/layout.js';
import { graphPicture } from '../ops/graph-picture.js';
import { readLog } from '../ops/log.js';
import { memoryPage } from '../ops/memory-page.js';
import { listMemories } from '../ops/query.js';
import { acceptCandidate, rejectCandidate, reviewCandidates } from '../ops/review.js';
import type { StoreServices } from '../ops/context.js';
import type { MemoryStatus } from '../core/types.js';

export interface ApiCall {
  services: StoreServices;
  query: URLSearchParams;
  body: Record<string, unknown>;
}

export type Route = (call: ApiCall) => Promise<unknown>;

/** A memory id or a candidate branch (`candidate/x`, `origin/candidate/x`): no path can leave the store. */
const NAME = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*){0,3}$/i;

/** A character named for a person: `"$" (U+0024)`, or the code point alone when it does not show. */
function described(ch: string): string {
  return isHiddenChar(ch)
    ? `${codePointName(ch)} (a character that does not show)`
    : `"${ch}" (${codePointName(ch)})`;
}

/**
 * Why the page refuses `value` as a name, or null when it takes it. A branch a teammate pushed can
 * hold `$(...)`, a leading "-" or a bidi control: the page still lists it (the person should see
 * it), so it says which rule the name breaks rather than failing with no reason.
 */
function nameProblem(value: string): string | null {
  if (!value) return 'no name was given';
  if (value.length > 200) return 'its name is longer than 200 characters';
  const bad = [...value].find((ch) => !/^[a-z0-9._/-]$/i.test(ch));
  if (bad)
    return `its name holds ${described(bad)}, and the page takes only the letters a-z, digits, ".", "_", "-" and "/"`;
  if (value.includes('..')) return 'its name holds "..", which could name a path outside the store';
  const parts = value.split('/');
  if (parts.length > 4) return 'its name has more than four parts between "/"';
  const part = parts.find((p) => !/^[a-z0-9]/i.test(p));
  if (part !== undefined)
    return part
      ? `its part "${part}" starts with "${part[0]}": each part between "/" starts with a letter or digit`
      : 'its name has an empty part between "/"';
  return NAME.test(value) ? null : 'it is not a memory id or candidate branch';
}

/** The CLI commands that act on a candidate the page refuses, for the person to paste. */
function terminalCommands(root: string, name: string): { accept: string; reject: string } {
  const arg = lastOperand(name);
  const store = `--store ${shownShellArg(root)}`;
  return { accept: `cairn accept ${store} ${arg}`, reject: `cairn reject ${store} --why "..." ${arg}` };
}

function name(value: unknown, field: string, instead?: (name: string) => string): string {
  if (typeof value !== 'string')
    throw new CairnError('INVALID_ID', `${field}: not a memory id or candidate branch`, { field });
  const reason = nameProblem(value);
  if (reason) {
    const command = instead?.(value);
    throw new CairnError(
      'INVALID_ID',
      `${field}: the review page refuses this name: ${reason}${command ? `; ${command}` : ''}`,
      { field, reason },
    );
  }
  return value;
}

/** The id or branch an accept or reject names; a refused one is answered with the command to use. */
function candidate(services: StoreServices, value: unknown, action: 'accept' | 'reject'): string {
  return name(
    value,
    'id',
    (v) => `${action} it in a terminal: ${terminalCommands(services.ctx.store.root, v)[action]}`,
  );
}

function text(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || !value.trim())
    throw new CairnError('INVALID_REQUEST', `${field} is required`, { field });
  if (value.length > max)
    throw new CairnError('INVALID_REQUEST', `${field} is longer than ${max} characters`, { field });
  return value;
}

function commit(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(value))
    throw new CairnError('INVALID_REQUEST', 'candidateTip: a commit id', { field: 'candidateTip' });
  return value;
}

function rules(value: unknown): string[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.length > 50 ||
    !value.every((r) => typeof r === 'string' && /^[a-z0-9/_.-]{1,80}$/i.test(r))
  )
    throw new CairnError('INVALID_REQUEST', 'allow: a list of scanner rule names', { field: 'allow' });
  return value as string[];
}

export const ROUTES: Record<string, Route> = {
  // Candidates with why, agent, findings and the diff against main (`cairn review`).
  // `refused`: why the page will not send a candidate's name back (its accept and reject would be
  // refused below) and the commands that act on it, so the card says so instead of offering buttons.
  'GET /api/review': async ({ services }) => ({
    candidates: (await reviewCandidates(services.ctx)).map((c) => {
      const reason = nameProblem(c.pick);
      return {
        ...c,
        refused: reason ? { reason, ...terminalCommands(services.ctx.store.root, c.pick) } : null,
      };
    }),
  }),
  // `cairn accept ID --allow RULE...`: flagged content only with the explicit allowance.
  // `candidateTip`: the commit the page showed; a branch that moved since is not accepted (REF_MOVED).
  'POST /api/accept': async ({ services, body }) =>
    acceptCandidate(services.ctx, candidate(services, body.id, 'accept'), {
      allow: rules(body.allow),
      allowStoreFiles: body.allowStoreFiles === true,
      overrideRejection: body.overrideRejection === true,
      candidateTip: commit(body.candidateTip),
    }),
  // `cairn reject ID --why TEXT`.
  'POST /api/reject': async ({ services, body }) =>
    rejectCandidate(services.ctx, candidate(services, body.id, 'reject'), text(body.why, 'why', 2000)),
  // `cairn list` (candidates and rejected included; the page filters).
  'GET /api/memories': async ({ services }) => ({
    memories: await listMemories(services.ctx, { includeRejected: true }),
  }),
  // `cairn get ID` plus triples, backlinks and history with trailers.
  'GET /api/memory': async ({ services, query }) => memoryPage(services.ctx, name(query.get('id'), 'id')),
  // `cairn search`: the store's one search service; provider and partial shown as they are.
  'GET /api/search': async ({ services, query }) => {
    const q = text(query.get('q'), 'q', 500);
    const includeCandidates = query.get('candidates') === '1';
    return services.search.search({ query: q, maxResults: 20, includeCandidates });
  },
  // `cairn log`: commits, candidates, rejection tags and dropped writes, newest first.
  'GET /api/activity': async ({ services, query }) => {
    const limit = Math.min(Math.max(Number(query.get('limit')) || 200, 1), 2000);
    return { entries: await readLog(services.ctx, { limit }) };
  },
  // `cairn graph`: the knowledge graph as a picture (ops/graph.ts graphPicture; the op checks
  // dates, statuses and numbers). A sampled picture says so (sampled, shown, total).
  'GET /api/graph': async ({ services, query }) => {
    const optional = (field: string, max = 200) => {
      const v = query.get(field);
      return v ? text(v, field, max) : undefined;
    };
    const whole = (field: string) => (query.get(field) ? Number(query.get(field)) : undefined);
    const picture = await graphPicture(services.ctx, {
      asOf: optional('asOf', 40),
      entity: optional('entity'),
      predicate: optional('predicate'),
      status: optional('status', 80)?.split(',') as MemoryStatus[] | undefined,
      depth: whole('depth'),
      maxNodes: whole('maxNodes'),
      hideOutside: query.get('hideOutside') === '1',
    });
    // Laid out here, with the SVG's deterministic layout: cytoscape's own force layout took
    // up to a minute in the browser for a sampled picture of 400 nodes and 2,900 edges.
    const size = Math.max(480, Math.round(Math.sqrt(picture.nodes.length) * 110));
    const at = layout(
      picture.nodes.map((n) => n.id),
      picture.edges,
      { size },
    );
    return { ...picture, nodes: picture.nodes.map((n) => ({ ...n, position: at.get(n.id) })) };
  },
};
