// review, accept, reject, allow, supersede, correct, feedback, forget, undo: what people do to memories.
import { allowFindings } from '../ops/allow.js';
import { acceptCandidate, rejectCandidate, reviewCandidates, type RejectResult } from '../ops/review.js';
import { correct, feedback, forget, supersede, type EditResult } from '../ops/edit.js';
import { undoLast } from '../ops/undo.js';
import { describeSettingChange } from '../core/settings-changes.js';
import { cairnCommand, shownShellArg } from '../core/shell-arg.js';
import { positionals, reason, strs, type Command } from './command.js';
import { EXIT, UsageError, oneLine, writeJson, writeLine } from './io.js';

export const reviewCommand: Command = {
  name: 'review',
  summary: 'List candidate memories with their diff against main',
  usage: 'cairn review [--no-diff]',
  needsStore: true,
  options: { 'no-diff': { type: 'boolean' } },
  async run(args, io, open) {
    const views = await reviewCandidates(await open());
    if (args.json) {
      writeJson(io, { candidates: views, total: views.length });
      return EXIT.OK;
    }
    if (views.length === 0) {
      writeLine(io, 'No candidates await review.');
      return EXIT.OK;
    }
    writeLine(io, `${views.length} candidate${views.length === 1 ? '' : 's'} awaiting review:\n`);
    for (const v of views) {
      writeLine(io, `● ${v.id} — ${oneLine(v.title)}`);
      writeLine(
        io,
        `  branch ${v.branch}${v.remote && v.remote !== v.branch ? ` (pushed as ${v.remote})` : ''}, by ${v.author}${v.agents.length > 1 ? ` (agents ${v.agents.join(', ')})` : ''} on ${v.date.slice(0, 10)}${v.origin ? `, origin ${v.origin}` : ''}`,
      );
      writeLine(io, `  why a candidate: ${v.reason}`);
      if (v.flagged) writeLine(io, `  flagged: ${v.flagged}`);
      // A proposal is for memories; anything else it carries is said before its diff.
      if (v.outsideStore.length)
        writeLine(
          io,
          `  ! changes files outside the store: ${v.outsideStore.join(', ')} (Cairn will not accept it)`,
        );
      if (v.storeFiles.length)
        writeLine(io, `  ! changes store files, not only memories: ${v.storeFiles.join(', ')}`);
      if (v.otherMemories.length)
        writeLine(io, `  ! also changes other memories: ${v.otherMemories.join(', ')}`);
      for (const s of v.settings)
        writeLine(
          io,
          `  ! ${s.weakens ? 'weakens governance' : 'changes a setting'}: cairn.yaml ${describeSettingChange(s)}`,
        );
      for (const r of v.rejectedBefore)
        writeLine(
          io,
          `  ! ${r.builtOn ? 'built on a proposal a person rejected' : `a person rejected ${r.sameText ? 'this text' : 'this id'} before`}: ${r.path} (tag ${r.tag}${r.reason ? `: "${r.reason}"` : ''})`,
        );
      if (v.outOfDate.length)
        writeLine(
          io,
          `  ! out of date: ${v.outOfDate.join(', ')} changed on main since it was proposed; the diff below would take that back, and accepting refuses (merge it by hand: git merge ${shownShellArg(v.branch)}, or reject it and store it again)`,
        );
      if (v.decisionClaims.length)
        writeLine(
          io,
          `  ! carries commits written as a person's decisions (they count for nothing if accepted): ${v.decisionClaims.join('; ')}`,
        );
      if (!args.values['no-diff']) writeLine(io, v.diff.replace(/^/gm, '  '));
      // Flagged content is accepted only with an explicit allowance (docs/governance.md).
      const allow = v.flagged
        ? ` --allow ${v.flagged
            .split(/[\s,]+/)
            .filter(Boolean)
            .join(',')}`
        : '';
      const storeFiles = v.storeFiles.length ? ' --allow-store-files' : '';
      const override = v.rejectedBefore.some((r) => r.sameText) ? ' --override-rejection' : '';
      const accept = v.outsideStore.length
        ? `with git if a person means it (git merge ${shownShellArg(v.branch)})`
        : cairnCommand(
            'accept',
            v.pick,
            `${allow}${storeFiles}${override} --commit ${v.commit.slice(0, 12)}`.trim(),
          );
      writeLine(io, `  accept: ${accept}    reject: ${cairnCommand('reject', v.pick, '--why "..."')}\n`);
    }
    return EXIT.OK;
  },
};

export const acceptCommand: Command = {
  name: 'accept',
  summary: 'Accept a candidate: merge its branch into main',
  usage:
    'cairn accept ID|BRANCH [--allow RULE[,RULE...]] [--allow-store-files] [--override-rejection] [--commit OID]',
  needsStore: true,
  options: {
    allow: { type: 'string', multiple: true },
    'allow-store-files': { type: 'boolean' },
    'override-rejection': { type: 'boolean' },
    commit: { type: 'string' },
  },
  async run(args, io, open) {
    const [id] = positionals(args, this.usage, 1);
    if (args.values.commit === '') throw new UsageError('--commit needs the commit `cairn review` showed');
    const r = await acceptCandidate(await open(), id, {
      allow: strs(args, 'allow'),
      overrideRejection: Boolean(args.values['override-rejection']),
      allowStoreFiles: Boolean(args.values['allow-store-files']),
      // The commit review showed: a branch that moved since (a fetch, an editor's background fetch
      // of a force-pushed branch) is not accepted.
      ...(typeof args.values.commit === 'string' ? { candidateTip: args.values.commit } : {}),
    });
    if (args.json) writeJson(io, { success: true, ...r });
    else if (r.alreadyMerged)
      writeLine(io, `${r.id} was already merged into main (by git or a pull request); removed its branch`);
    else
      writeLine(
        io,
        `accepted ${r.id}: merge commit ${r.commit?.slice(0, 8)} (${r.paths.join(', ')})` +
          (r.allowed.length ? `; agents may read what ${r.allowed.join(', ')} flags in it` : ''),
      );
    return EXIT.OK;
  },
};

export const allowCommand: Command = {
  name: 'allow',
  summary: 'Let agents read what a scanner rule flags in one memory (recorded as a commit)',
  usage: 'cairn allow ID RULE [RULE...] [--why TEXT]',
  needsStore: true,
  options: { why: { type: 'string' } },
  async run(args, io, open) {
    const [id, ...rules] = positionals(args, this.usage, 2, Infinity);
    const r = await allowFindings(await open(), id, rules, reason(args, 'why'));
    if (args.json) writeJson(io, { success: true, ...r });
    else if (!r.commit) writeLine(io, `${r.rules.join(', ')} already allowed on ${id}; nothing changed`);
    else
      writeLine(
        io,
        `allowed ${r.rules.join(', ')} on ${id} (commit ${r.commit.slice(0, 8)}): agents now read that text; ` +
          'reverting that commit (`cairn undo` while it is the newest) takes it back',
      );
    return EXIT.OK;
  },
};

export const rejectCommand: Command = {
  name: 'reject',
  summary: 'Reject a candidate, keeping it under a rejected/<id> tag with the reason',
  usage: 'cairn reject ID|BRANCH --why TEXT',
  needsStore: true,
  options: { why: { type: 'string' } },
  async run(args, io, open) {
    const [id] = positionals(args, this.usage, 1);
    const why = reason(args, 'why');
    if (!why) throw new UsageError('reject needs a reason: --why "TEXT"');
    const r = await rejectCandidate(await open(), id, why);
    if (args.json) writeJson(io, { success: true, ...r });
    else writeLine(io, rejectedLine(r));
    return EXIT.OK;
  },
};

/** What was tagged, and how its branches go: said as it is, not as it usually is. */
function rejectedLine(r: RejectResult): string {
  const what = `rejected ${r.id}: kept as tag ${r.tag} on ${r.branch} (commit ${r.commit.slice(0, 8)}) ("${r.reason}")`;
  const here = r.deletedBranch ? `; branch ${r.deletedBranch} deleted` : '; no branch of it here';
  const there = r.goneFromRemote
    ? "; the remote deleted its branch since this clone's last sync (a pull request closed there, " +
      'or merged with more on top: nothing here tells which), so the tag alone records this ' +
      'rejection; `cairn sync` pushes it'
    : "; `cairn sync` pushes the tag and deletes the remote's branch if it still holds that commit";
  return what + here + there;
}

function printEdit(io: Parameters<Command['run']>[1], json: boolean, r: EditResult, text: string) {
  if (json) writeJson(io, { success: true, ...r });
  else
    writeLine(
      io,
      r.staged
        ? `${text} proposed on ${r.branch} for review: ${r.reason}`
        : `${text} (commit ${r.commit.slice(0, 8)})${r.note ? `; ${r.note}` : ''}`,
    );
}

export const supersedeCommand: Command = {
  name: 'supersede',
  summary: 'Mark OLD as superseded by NEW',
  usage: 'cairn supersede OLD NEW',
  needsStore: true,
  async run(args, io, open) {
    const [older, newer] = positionals(args, this.usage, 2);
    printEdit(
      io,
      args.json,
      await supersede(await open(), older, newer),
      `${older} is superseded by ${newer}`,
    );
    return EXIT.OK;
  },
};

export const correctCommand: Command = {
  name: 'correct',
  summary: "Replace a memory's context with corrected text (history kept in git)",
  usage: 'cairn correct ID TEXT',
  needsStore: true,
  async run(args, io, open) {
    const [id, ...rest] = positionals(args, this.usage, 2, Infinity);
    printEdit(io, args.json, await correct(await open(), id, rest.join(' ')), `corrected ${id}`);
    return EXIT.OK;
  },
};

export const feedbackCommand: Command = {
  name: 'feedback',
  summary: 'Record that a memory was useful (up) or not (down)',
  usage: 'cairn feedback ID up|down [--note TEXT]',
  needsStore: true,
  options: { note: { type: 'string' } },
  async run(args, io, open) {
    const [id, vote] = positionals(args, this.usage, 2);
    if (vote !== 'up' && vote !== 'down') throw new UsageError('feedback is "up" or "down"');
    printEdit(
      io,
      args.json,
      await feedback(await open(), id, vote, reason(args, 'note')),
      `recorded ${vote} for ${id}`,
    );
    return EXIT.OK;
  },
};

export const forgetCommand: Command = {
  name: 'forget',
  summary: 'Remove a memory from main (it stays in git history)',
  usage: 'cairn forget ID [--why TEXT]',
  needsStore: true,
  options: { why: { type: 'string' } },
  async run(args, io, open) {
    const [id] = positionals(args, this.usage, 1);
    const r = await forget(await open(), id, reason(args, 'why'));
    const linked = r.stillLinked?.map((l) => `${l.path}:${l.line}`).join(', ');
    printEdit(io, args.json, r, `forgot ${id}`);
    const index = r.stillLinked?.some((l) => l.path === 'MEMORY.md')
      ? '; cairn refresh rewrites the generated index'
      : '';
    const verb = r.stillLinked?.length === 1 ? 'links' : 'link';
    if (linked && !args.json)
      writeLine(
        io,
        `note: ${linked} still ${verb} [[${id}]]: remove the link (cairn check reports it${index})`,
      );
    return EXIT.OK;
  },
};

export const undoCommand: Command = {
  name: 'undo',
  summary: 'Revert the last memory commit on main (or the last change to ID) with a new commit',
  usage: 'cairn undo [ID] [--dry-run]',
  needsStore: true,
  options: { 'dry-run': { type: 'boolean' } },
  async run(args, io, open) {
    const dryRun = Boolean(args.values['dry-run']);
    const [id] = positionals(args, this.usage, 0, 1);
    const r = await undoLast(await open(), { id, dryRun });
    // Who and when: after a sync the newest change on main may be a teammate's.
    const what = `"${r.undone.subject}" by ${r.undone.author} on ${r.undone.date.slice(0, 10)}`;
    if (args.json) writeJson(io, { success: true, ...r });
    else if (r.commit === null) writeLine(io, `would undo ${what} (${r.paths.join(', ')}); nothing changed`);
    else writeLine(io, `undid ${what} with commit ${r.commit.slice(0, 8)}`);
    return EXIT.OK;
  },
};
