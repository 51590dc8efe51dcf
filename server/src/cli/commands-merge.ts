// setup, merge-driver: the memory merge driver in a clone (docs/merging.md).
import { runMergeDriver, setupClone } from '../ops/merge-driver.js';
import type { Command } from './command.js';
import { EXIT, UsageError, writeJson, writeLine, writeText } from './io.js';

export const setupCommand: Command = {
  name: 'setup',
  summary: 'Prepare this clone: register the memory merge driver in its git config',
  usage: 'cairn setup',
  needsStore: true,
  async run(args, io, open) {
    const r = await setupClone(await open());
    if (args.json) {
      writeJson(io, r);
      return EXIT.OK;
    }
    writeLine(
      io,
      r.changed
        ? `Registered the memory merge driver in ${r.root}/.git/config: concurrent edits of a memory now merge by key and section.`
        : `The memory merge driver is already registered in ${r.root}.`,
    );
    if (r.unrouted.length)
      writeLine(
        io,
        `Note: .gitattributes does not send ${r.unrouted.join(', ')} to it; add a line \`PATTERN merge=cairn\` ` +
          `for each (memory-template/.gitattributes has them) and commit it.`,
      );
    return EXIT.OK;
  },
};

export const mergeDriverCommand: Command = {
  name: 'merge-driver',
  summary: "Git's merge driver for store files (git runs it; `cairn setup` registers it)",
  usage: 'cairn merge-driver BASE OURS THEIRS PATH   (git: %O %A %B %P; the result replaces OURS)',
  rawArgs: true,
  async run(args, io) {
    const [base, ours, theirs, path] = args.positionals;
    if (args.positionals.length !== 4)
      throw new UsageError(
        `merge-driver takes 4 arguments, got ${args.positionals.length}\nusage: ${this.usage}`,
      );
    const r = await runMergeDriver({ base, ours, theirs, path }, io.cwd);
    if (r.conflicts === 0) return EXIT.OK;
    writeText(
      io,
      `cairn: ${path}: ${r.conflicts} conflict${r.conflicts === 1 ? '' : 's'} left between <<<<<<< and >>>>>>> markers ` +
        '(both sides changed the same lines); `cairn check` lists them\n',
      'stderr',
    );
    // git's contract: non-zero means the result holds conflicts.
    return EXIT.FAILED;
  },
};
