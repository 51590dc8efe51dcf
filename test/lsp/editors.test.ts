// Real editors as clients, headless, through ../shared/lsp-harness: what Neovim, Emacs/Eglot and
// Vim/ALE show for diagnostics, `[[` completion and hover. Each is skipped, with the reason printed,
// when its editor or the harness is missing (install: ../shared/lsp-harness/install-editors.sh).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMACS_PREAMBLE, makeStore, memoryText } from './lsp-helper.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const HARNESS = path.resolve(REPO, '../shared/lsp-harness');
const SERVER_CMD = [process.execPath, path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'];
const BUILT = existsSync(path.join(REPO, 'dist/lsp/index.js'));

function missing(editor: string): string | null {
  if (!existsSync(HARNESS)) return `no harness at ${HARNESS}`;
  if (!BUILT) return 'dist/lsp is not built (run `npx tsc -p tsconfig.json`)';
  if (spawnSync('sh', ['-c', `command -v ${editor}`]).status !== 0) return `${editor} is not on PATH`;
  return null;
}

const LINE = 'Uses [[deploy-notes]] and [[missing-one]]. Next: [[';
/** Body line of memoryText (after 6 front-matter lines). */
const BODY = 6;

function runEditor(script: string): Record<string, any> {
  const root = makeStore({
    'memories/current.md': memoryText('current', LINE),
    'memories/deploy-notes.md': memoryText(
      'deploy-notes',
      'Deployments go through staging first; production needs a signed tag.',
    ),
    'memories/.current.md.kate-swp': 'swap file',
    'memories/current.md~': 'backup file',
  });
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'cairn-editor-')), 'result.json');
  execFileSync('bash', [path.join(HARNESS, script)], {
    env: {
      ...process.env,
      LSP_CMD: JSON.stringify(SERVER_CMD),
      LSP_ROOT: root,
      LSP_FILE: 'memories/current.md',
      COMP_LINE: String(BODY),
      COMP_CHAR: String(LINE.length),
      HOVER_LINE: String(BODY),
      HOVER_CHAR: '10',
      OUT: out,
    },
    stdio: 'ignore',
    timeout: 60_000,
  });
  return JSON.parse(readFileSync(out, 'utf8'));
}

function report(editor: string): string | null {
  const reason = missing(editor);
  if (reason) console.warn(`skipping ${editor} test: ${reason}`);
  return reason;
}

describe('real editors', () => {
  it.skipIf(report('nvim'))('Neovim shows the diagnostics, [[ completion and hover', () => {
    const r = runEditor('nvim/run-nvim.sh');
    expect(r.error ?? null).toBeNull();
    const shown = r.vim_diagnostics.map((d: any) => `${d.code}@${d.lnum}:${d.col}`);
    expect(shown).toEqual([`ref/unknown@${BODY}:26`]);
    expect(r.completion.items.map((i: any) => i.label)).toEqual(['deploy-notes']);
    expect(r.hover.value.contents.value).toContain('**deploy notes** `deploy-notes`');
    expect(r.hover.value.contents.value).toContain('status: active');
  });

  it.skipIf(report('emacs'))('Emacs/Eglot shows the diagnostics, [[ completion and hover', () => {
    const r = runEditor('emacs/run-emacs.sh');
    expect(r.error ?? null).toBeNull();
    expect(r.flymakeDiagnostics.map((d: any) => d.text)).toEqual([expect.stringContaining('[ref/unknown]')]);
    expect(r.completion.labels).toEqual(['deploy-notes']);
    expect(r.hover.value).toContain('status: active');
  });

  it.skipIf(report('vim'))('Vim/ALE gets plain-text hover, completion and diagnostics', () => {
    const r = runEditor('vim-ale/run-vim.sh');
    expect(r.aleDiagnostics.map((d: any) => [d.lnum, d.code])).toEqual([[BODY + 1, 'ref/unknown']]);
    expect(r.completion.items.map((i: any) => i.word)).toEqual(['deploy-notes]]']);
    expect(r.hover.value.contents).toMatchObject({ kind: 'plaintext' });
    expect(r.hover.value.contents.value).toContain('deploy notes (deploy-notes)');
  });

  // Eglot's own completion-at-point, as a person typing `[[expi` gets it: Eglot keeps the items whose
  // filterText starts with the typed word, so a word of the title must lead it.
  it.skipIf(report('emacs'))('Emacs/Eglot completes a memory from a word of its title', () => {
    const root = makeStore({
      'memories/redis-ttl.md': memoryText(
        'redis-ttl',
        'Login sessions live in Redis for thirty minutes.',
      ).replace('title: redis ttl', 'title: Session expiry'),
      'memories/build-cache.md': memoryText('build-cache', 'CI caches builds per branch.'),
      'memories/note.md': memoryText('note', 'Why are people logged out? See [[expi'),
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-eglot-'));
    const script = path.join(dir, 'capf.el');
    writeFileSync(
      script,
      `${EMACS_PREAMBLE}(require 'markdown-mode nil t)
(let ((eglot-sync-connect t)
      (cmd (append (json-read-from-string (getenv "CAIRN_CMD")) nil)))
  (add-to-list 'eglot-server-programs (cons '(markdown-mode gfm-mode fundamental-mode text-mode) cmd))
  (find-file (expand-file-name "memories/note.md" (getenv "CAIRN_ROOT")))
  (apply #'eglot (eglot--guess-contact))
  (sleep-for 1.5)
  (goto-char (point-min))
  (search-forward "[[expi")
  (let* ((capf (eglot-completion-at-point))
         (probe (buffer-substring-no-properties (nth 0 capf) (nth 1 capf)))
         (shown (mapcar #'substring-no-properties (all-completions probe (nth 2 capf)))))
    (with-temp-file (getenv "CAIRN_OUT")
      (insert (json-encode (list :probe probe :shown (vconcat shown))))))
  (kill-emacs 0))
`,
    );
    const out = path.join(dir, 'out.json');
    execFileSync('emacs', ['--batch', '-Q', '-l', script], {
      env: {
        ...process.env,
        HOME: dir,
        CAIRN_CMD: JSON.stringify(SERVER_CMD),
        CAIRN_ROOT: root,
        CAIRN_OUT: out,
      },
      stdio: 'ignore',
      timeout: 60_000,
    });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ probe: 'expi', shown: ['redis-ttl'] });
  });
});
