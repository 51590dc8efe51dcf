// Review: the candidates waiting, each with why it is one, who proposed it, what the scanner found
// (highlighted in the diff) and the diff against main; accept (flagged content only with an explicit
// allowance per rule) or reject with a reason. Each action is one POST, one operation, as the CLI's
// `cairn accept` / `cairn reject`. `#/review/ID` shows that candidate alone.
import { ApiError, errorText, get, post } from '../api.js';
import { renderDiff, type Finding } from '../diff.js';
import { h, route, when } from '../dom.js';
import type { View, ViewContext } from '../view.js';

interface Candidate {
  id: string;
  branch: string;
  /** The commit shown: an accept names it, so a branch that moved since is not merged unseen. */
  commit: string;
  pick: string;
  title: string;
  author: string;
  date: string;
  origin: string | null;
  agent: string | null;
  /** Every agent whose commit the proposal carries, oldest first. */
  agents: string[];
  reason: string;
  flagged: string | null;
  paths: string[];
  /** Store files that are not memories (cairn.yaml, ...): accepting them needs a tick. */
  storeFiles: string[];
  /** Files outside the store: Cairn never accepts these. */
  outsideStore: string[];
  /** Memories it changes besides its own (`(deleted)` marks a deletion). */
  otherMemories: string[];
  /** What its cairn.yaml changes; `weakens` says what it lets through without a person. */
  settings: { key: string; from: string; to: string; weakens?: string }[];
  /** Its commits written as a person's decisions (they count for nothing if accepted). */
  decisionClaims: string[];
  /** Its memory files a person rejected before; `sameText`: accepting needs a tick. */
  rejectedBefore: { path: string; tag: string; reason: string; sameText: boolean; builtOn?: boolean }[];
  /** Files main changed too since it was proposed: accepting refuses until it is merged by hand. */
  outOfDate: string[];
  diff: string;
  findings: Finding[];
  /**
   * Set when the page's API refuses this candidate's name (a teammate's `candidate/evil$(...)`):
   * why, and the CLI commands that act on it, quoted for the shell by the server.
   */
  refused: { reason: string; accept: string; reject: string } | null;
}

export const reviewView: View = {
  title: 'Review',
  async render(ctx) {
    const { candidates } = await get<{ candidates: Candidate[] }>('review');
    const shown = ctx.arg ? candidates.filter((c) => c.id === ctx.arg || c.pick === ctx.arg) : candidates;
    const section = h('section', { 'aria-labelledby': 'review-h' });
    section.append(
      h('h1', { id: 'review-h' }, ctx.arg ? `Review ${ctx.arg}` : 'Review'),
      h(
        'p',
        null,
        candidates.length === 0
          ? 'No candidates await review.'
          : `${candidates.length} candidate${candidates.length === 1 ? '' : 's'} awaiting review.`,
        ctx.arg ? [' ', h('a', { href: route('review') }, 'Show all candidates')] : null,
      ),
    );
    if (ctx.arg && shown.length === 0)
      section.append(
        h(
          'p',
          { role: 'alert' },
          `No open candidate "${ctx.arg}": it may have been accepted or rejected already.`,
        ),
      );
    for (const c of shown) section.append(candidateCard(c, ctx));
    return section;
  },
};

/**
 * What a person typed, ticked or was told on each candidate, kept across redraws: the page redraws
 * when the store changes (live updates), and that must not wipe a reason or an error.
 */
interface Draft {
  why: string;
  allow: Set<string>;
  storeFiles: boolean;
  overrideRejection: boolean;
  message: string;
}
const drafts = new Map<string, Draft>();

/** A branch name in a command to copy into a shell: quoted unless plain (a teammate names branches). */
function shellArg(value: string): string {
  return /^[A-Za-z0-9._/@%+=:,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function draftOf(pick: string) {
  let d = drafts.get(pick);
  if (!d)
    drafts.set(
      pick,
      (d = { why: '', allow: new Set(), storeFiles: false, overrideRejection: false, message: '' }),
    );
  return d;
}

/** A note above the diff about files a candidate changes besides memories. */
function fileNote(label: string, title: string, text: string): HTMLElement {
  return h(
    'div',
    { class: 'findings', role: 'note', 'aria-label': label },
    h('h3', null, title),
    h('p', null, text),
  );
}

function candidateCard(c: Candidate, ctx: ViewContext): HTMLElement {
  // Element ids for this card: one per proposal (`candidate/a.b` and `candidate/a-b` must not share
  // them, or a label, a message or the busy state would reach the other card).
  const key = c.pick.replace(/[^a-z0-9-]/gi, (ch) => `_${ch.codePointAt(0)!.toString(16)}_`);
  const draft = draftOf(c.pick);
  const rules = [...new Set(c.findings.map((f) => f.rule))];
  const message = h('p', { class: 'result', role: 'alert', id: `msg-${key}` }, draft.message);
  /** Written to the card on screen now, which a redraw may have replaced since the click. */
  const say = (text: string) => {
    draft.message = text;
    const el = document.getElementById(`msg-${key}`);
    if (el) el.textContent = text;
  };
  const allowBoxes = rules.map((rule) => {
    const box = h('input', { type: 'checkbox', id: `allow-${key}-${rule}`, value: rule, name: 'allow' });
    box.checked = draft.allow.has(rule);
    box.addEventListener('change', () => (box.checked ? draft.allow.add(rule) : draft.allow.delete(rule)));
    return box;
  });
  const storeBox = h('input', { type: 'checkbox', id: `store-files-${key}`, name: 'allowStoreFiles' });
  storeBox.checked = draft.storeFiles;
  storeBox.addEventListener('change', () => (draft.storeFiles = storeBox.checked));
  const rejectedText = c.rejectedBefore.some((r) => r.sameText);
  const overrideBox = h('input', { type: 'checkbox', id: `override-${key}`, name: 'overrideRejection' });
  overrideBox.checked = draft.overrideRejection;
  overrideBox.addEventListener('change', () => (draft.overrideRejection = overrideBox.checked));
  const reason = h('textarea', { id: `why-${key}`, rows: 2, maxlength: 2000, name: 'why' });
  reason.value = draft.why;
  reason.addEventListener('input', () => (draft.why = reason.value));
  const busy = (on: boolean) => {
    for (const b of document.querySelectorAll<HTMLButtonElement>(`#candidate-${key} button`)) b.disabled = on;
  };

  async function accept(): Promise<void> {
    busy(true);
    try {
      await post('accept', {
        id: c.pick,
        allow: [...draft.allow],
        allowStoreFiles: draft.storeFiles,
        overrideRejection: draft.overrideRejection,
        candidateTip: c.commit,
      });
      drafts.delete(c.pick);
      ctx.announce(`Accepted ${c.id}.`);
      ctx.refresh();
    } catch (err) {
      const needs = err instanceof ApiError && err.code === 'NEEDS_ALLOWANCE' ? err : null;
      const rejected = err instanceof ApiError && err.code === 'ALREADY_REJECTED';
      if (err instanceof ApiError && err.code === 'REF_MOVED') {
        // Kept on the card (a live update may redraw the page meanwhile), which is drawn again with
        // what the branch holds now.
        say(`Not accepted: ${c.id} changed since this page showed it. Read it again below, then accept.`);
        ctx.refresh();
        return;
      }
      say(
        rejected
          ? `Not accepted: ${errorText(err)}. If you mean to accept it all the same, tick the box above and accept again.`
          : needs?.data?.storeFiles
            ? `Not accepted: it also changes store files (${c.storeFiles.join(', ')}). If you have read them and want them on main, tick the box above and accept again; otherwise reject it.`
            : needs
              ? `Not accepted: it holds text the scanner flags (${rules.join(', ')}). If you have read it and agents may see it, tick each rule above and accept again; otherwise reject it.`
              : errorText(err),
      );
      busy(false);
    }
  }

  async function reject(): Promise<void> {
    if (!draft.why.trim()) {
      say('Say why you reject it: the reason is kept with the rejected memory.');
      document.getElementById(`why-${key}`)?.focus();
      return;
    }
    busy(true);
    try {
      await post('reject', { id: c.pick, why: draft.why });
      drafts.delete(c.pick);
      ctx.announce(`Rejected ${c.id}.`);
      ctx.refresh();
    } catch (err) {
      say(errorText(err));
      busy(false);
    }
  }

  /** The decisions: accept (with the boxes it may need) and reject with a reason. */
  const actions = () =>
    h(
      'form',
      { class: 'actions', onsubmit: (e: Event) => e.preventDefault(), 'aria-label': `Decide on ${c.id}` },
      rules.length
        ? h(
            'fieldset',
            { class: 'allow' },
            h('legend', null, 'Accepting lets agents read the flagged text verbatim. Allow:'),
            rules.map((rule, i) =>
              h('div', null, allowBoxes[i], ' ', h('label', { for: allowBoxes[i].id }, rule)),
            ),
          )
        : null,
      c.storeFiles.length
        ? h(
            'div',
            { class: 'allow' },
            storeBox,
            ' ',
            h('label', { for: storeBox.id }, `Also accept the store files (${c.storeFiles.join(', ')})`),
          )
        : null,
      rejectedText
        ? h(
            'div',
            { class: 'allow' },
            overrideBox,
            ' ',
            h('label', { for: overrideBox.id }, 'Accept although a person rejected this text'),
          )
        : null,
      h(
        'div',
        { class: 'buttons' },
        h(
          'button',
          { type: 'button', class: 'accept', onclick: () => void accept(), 'aria-label': `Accept ${c.id}` },
          'Accept',
        ),
      ),
      h('label', { for: reason.id }, `Reason for rejecting ${c.id}`),
      reason,
      h(
        'div',
        { class: 'buttons' },
        h(
          'button',
          { type: 'button', class: 'reject', onclick: () => void reject(), 'aria-label': `Reject ${c.id}` },
          'Reject',
        ),
      ),
      message,
    );

  return h(
    'article',
    { class: 'candidate', id: `candidate-${key}`, 'aria-labelledby': `title-${key}`, 'data-id': c.id },
    h('h2', { id: `title-${key}` }, c.title || c.id),
    h(
      'dl',
      { class: 'meta' },
      h('dt', null, 'Id'),
      h('dd', null, h('code', null, c.id)),
      h('dt', null, 'Why a candidate'),
      h('dd', { class: 'why' }, c.reason),
      h('dt', null, 'Proposed by'),
      h(
        'dd',
        null,
        c.agents.length ? c.agents.map((a) => `${a} (agent)`).join(', ') : c.author,
        c.origin ? ` · origin ${c.origin}` : '',
      ),
      h('dt', null, 'When'),
      h('dd', null, when(c.date)),
      h('dt', null, 'Branch'),
      h('dd', null, h('code', null, c.branch)),
    ),
    c.findings.length
      ? h(
          'div',
          { class: 'findings', role: 'note', 'aria-label': 'Scanner findings' },
          h('h3', null, `Scanner findings (${c.findings.length})`),
          h(
            'ul',
            null,
            c.findings.map((f) =>
              h('li', null, h('code', null, f.rule), ` ${f.path}:${f.line} — ${f.message}`),
            ),
          ),
        )
      : null,
    c.outsideStore.length
      ? fileNote(
          'Files outside the store',
          'Changes files outside the store',
          `${c.outsideStore.join(', ')}: Cairn accepts memories only, never changes to the project around the store. Merge the branch with git if you mean it; otherwise reject it.`,
        )
      : null,
    c.storeFiles.length
      ? fileNote(
          'Store files',
          'Changes store files, not only memories',
          `${c.storeFiles.join(', ')}: accepting merges them onto main too (cairn.yaml holds the store's governance and scanner settings).`,
        )
      : null,
    c.otherMemories.length
      ? fileNote(
          'Other memories',
          'Also changes other memories',
          `${c.otherMemories.join(', ')}: accepting changes them too. Read their diff below.`,
        )
      : null,
    c.settings.length
      ? fileNote(
          'Settings',
          c.settings.some((x) => x.weakens) ? 'Weakens governance' : 'Changes settings',
          c.settings
            .map((x) => `cairn.yaml ${x.key}: ${x.from} → ${x.to}${x.weakens ? ` (${x.weakens})` : ''}`)
            .join('; '),
        )
      : null,
    c.outOfDate.length
      ? fileNote(
          'Out of date',
          'Main changed this since it was proposed',
          `${c.outOfDate.join(', ')}: the diff below would take main's change back, and accepting refuses. Merge it by hand (git merge ${shellArg(c.branch)}) or reject it and store it again.`,
        )
      : null,
    c.decisionClaims.length
      ? fileNote(
          'Decision commits',
          "Carries commits written as a person's decisions",
          `${c.decisionClaims.join('; ')}: they count for nothing if you accept (decisions count only when made on main). A proposal that carries them is trying something.`,
        )
      : null,
    c.rejectedBefore.length
      ? fileNote(
          'Rejected before',
          rejectedText ? 'A person rejected this text before' : 'A person rejected this id before',
          c.rejectedBefore
            .map(
              (r) =>
                `${r.path}: ${r.builtOn ? 'built on the rejected proposal, ' : ''}tag ${r.tag}${r.reason ? ` ("${r.reason}")` : ''}`,
            )
            .join('; '),
        )
      : null,
    renderDiff(c.diff, c.findings),
    c.refused ? refusedNote(c.refused) : actions(),
  );
}

/**
 * In place of the buttons for a candidate whose name the page's API refuses: an accept or reject
 * from here would fail, so the person is told why and given the commands that work, shown as text.
 */
function refusedNote(refused: NonNullable<Candidate['refused']>): HTMLElement {
  return h(
    'div',
    { class: 'findings refused', role: 'note', 'aria-label': 'Accept or reject it in a terminal' },
    h('h3', null, 'Accept or reject it in a terminal'),
    h(
      'p',
      null,
      `This page does not accept or reject this candidate: ${refused.reason} (so that no request it ` +
        "sends can name a file or ref outside the store). Cairn's commands take the name as it is: read " +
        'the diff above, then run one of these in a terminal. The name is quoted for the shell, so copy ' +
        'the line as it is (and put your reason in place of ...):',
    ),
    h('pre', null, h('code', null, refused.accept)),
    h('pre', null, h('code', null, refused.reject)),
  );
}
