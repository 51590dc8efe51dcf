// `cairn lsp` and `cairn check`: the language server and the same rules run headless for CI.
import { str, type Command } from './command.js';
import { UsageError, writeText } from './io.js';

export const lspCommand: Command = {
  name: 'lsp',
  summary: 'Run the language server on stdio (diagnostics, completion, navigation, search)',
  usage: 'cairn lsp --stdio [--store DIR]',
  options: { stdio: { type: 'boolean' } },
  async run(args, io, _open, root) {
    const { runLspStdio } = await import('../lsp/index.js');
    // Each store the editor opens gets its context and search worker from the composition root.
    // --store DIR: that store only (the VS Code `cairn.store` setting); else every store among the
    // editor's workspace folders and the files it opens.
    runLspStdio({
      openStore: (dir) => root.openStore(dir, (m) => void io.stderr.write(`${m}\n`)),
      store: str(args, 'store'),
      workspaceParser: root.workspaceParser(),
      scanElsewhere: root.scanElsewhere(),
    });
    // The server runs until stdin closes; it ends the process itself.
    return new Promise<number>(() => {});
  },
};

export const checkCommand: Command = {
  name: 'check',
  summary: 'Run the language server rules over the store (or the files a branch changes) like a compiler',
  usage: 'cairn check [--changed BASE] [--format text|json|sarif]',
  needsStore: true,
  options: { changed: { type: 'string' }, format: { type: 'string' } },
  async run(args, io, open) {
    const format = (args.json ? 'json' : (str(args, 'format') ?? 'text')) as 'text' | 'json' | 'sarif';
    if (!['text', 'json', 'sarif'].includes(format)) throw new UsageError('--format is text, json or sarif');
    const { checkStore, resolveRevision } = await import('../ops/check.js');
    const rev = str(args, 'changed');
    if (rev?.startsWith('-'))
      throw new UsageError(
        `--changed ${rev} starts with "-": give a branch or revision, such as main or HEAD~1`,
      );
    const ctx = await open();
    const base = rev === undefined ? undefined : await resolveRevision(ctx, rev);
    if (base === null)
      throw new UsageError(
        `--changed ${rev} is not a branch or revision of this repository: fetch it first (git fetch), ` +
          'or pass another, such as main or HEAD~1',
      );
    const r = await checkStore(ctx, { changed: base, format });
    writeText(io, r.output);
    return r.exitCode;
  },
};
