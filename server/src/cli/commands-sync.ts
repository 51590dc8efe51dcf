// sync, propose: sharing the store through its git remote (docs/governance.md, "Working with a remote").
import { describeSettingChange } from '../core/settings-changes.js';
import { proposeCandidate } from '../ops/propose.js';
import { syncStore, type SyncReport } from '../ops/sync.js';
import type { Command } from './command.js';
import { EXIT, UsageError, writeJson, writeLine, writeText, type CliIO } from './io.js';

/** A person at a terminal may be asked for a password by git; anything else never is. */
function interactive(io: CliIO): boolean {
  return Boolean(io.stdin.isTTY) && io.stderrIsTTY;
}

const short = (oid: string | null) => (oid ? oid.slice(0, 8) : '(new merge)');
const list = (refs: string[]) => refs.map((r) => r.replace(/^refs\/(heads|tags)\//, '')).join(', ');

function printSync(io: CliIO, r: SyncReport): void {
  const would = r.dryRun ? 'would ' : '';
  writeLine(io, `${r.dryRun ? 'Plan for' : 'Synced with'} ${r.remote} (${r.url})`);
  const main =
    r.main === 'fast-forward'
      ? `${would}fast-forward to ${short(r.mainAfter)} from ${r.remote}`
      : r.main === 'merge'
        ? `${would}merge ${r.remote}'s new commits (merge commit ${short(r.mainAfter)})`
        : r.main === 'ahead'
          ? `ahead of ${r.remote}`
          : 'up to date';
  writeLine(io, `  main: ${main}`);
  if (r.pushed.length) writeLine(io, `  ${r.dryRun ? 'would push' : 'pushed'}: ${list(r.pushed)}`);
  if (r.deletedRemote.length)
    writeLine(io, `  ${would}remove from ${r.remote} (accepted or rejected): ${list(r.deletedRemote)}`);
  if (r.deletedLocal.length)
    writeLine(io, `  ${would}remove here (accepted or rejected): ${list(r.deletedLocal)}`);
  if (r.newCandidates.length)
    writeLine(io, `  new proposals to review: ${r.newCandidates.join(', ')} (cairn review)`);
  if (r.newRejections.length) writeLine(io, `  rejected elsewhere: ${r.newRejections.join(', ')}`);
  for (const s of r.settingsChanged)
    writeLine(
      io,
      `  ! ${s.weakens ? 'weakens governance' : 'setting changed'}: cairn.yaml ${describeSettingChange(s)}` +
        ` (${r.dryRun ? 'would arrive' : 'arrived'} from ${r.remote})`,
    );
  if (!r.pushed.length && !r.deletedRemote.length && r.main === 'up-to-date' && !r.newCandidates.length)
    writeLine(io, '  nothing to share');
  for (const w of r.warnings) writeText(io, `cairn: ${w}\n`, 'stderr');
}

export const syncCommand: Command = {
  name: 'sync',
  summary: 'Share the store through its git remote: fetch, update main, push proposals and rejections',
  usage: 'cairn sync [--dry-run]',
  needsStore: true,
  options: { 'dry-run': { type: 'boolean' } },
  async run(args, io, open) {
    const r = await syncStore(await open(), {
      dryRun: Boolean(args.values['dry-run']),
      interactive: interactive(io),
    });
    if (args.json) writeJson(io, { success: true, ...r });
    else printSync(io, r);
    return EXIT.OK;
  },
};

export const proposeCommand: Command = {
  name: 'propose',
  summary: 'Push a candidate to the remote and print the link that opens its pull request',
  usage: 'cairn propose ID|BRANCH',
  needsStore: true,
  async run(args, io, open) {
    const [name] = args.positionals;
    if (!name) throw new UsageError(`usage: ${this.usage}`);
    const r = await proposeCandidate(await open(), name, { interactive: interactive(io) });
    if (args.json) writeJson(io, { success: true, ...r });
    else {
      writeLine(
        io,
        `${r.pushed ? 'pushed' : `${r.remote} already has`} ${r.id} as ${r.branch}` +
          (r.url ? `; open the pull request:\n  ${r.url}` : ''),
      );
      for (const w of r.warnings) writeText(io, `cairn: ${w}\n`, 'stderr');
    }
    return EXIT.OK;
  },
};
