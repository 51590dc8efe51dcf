// The Emacs client (clients/emacs/cairn.el) in real Emacs batch mode with Eglot, against the real
// language server: cairn-eglot-ensure starts it for a store file and Eglot receives the server's
// diagnostics; a markdown file outside a store gets no server.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir } from '../helpers/store.js';

const REPO = path.resolve(import.meta.dirname, '../..');
// Debian's elpa-eglot and elpa-markdown-mode (../shared/lsp-harness/install-editors.sh) live here.
const ELPA = '/usr/share/emacs/site-lisp/elpa';
const PRELUDE = `(progn (add-to-list 'package-directory-list "${ELPA}") (package-initialize))`;

const emacsReady =
  spawnSync(
    'emacs',
    ['--batch', '-Q', '--eval', `(progn ${PRELUDE} (require 'eglot) (require 'markdown-mode))`],
    { encoding: 'utf8' },
  ).status === 0;
const notBuilt = !existsSync(path.join(REPO, 'dist/lsp/index.js'));
if (!emacsReady)
  console.warn('skipping the Emacs client test: emacs with eglot and markdown-mode is not installed');
else if (notBuilt)
  console.warn('skipping the Emacs client test: dist/ is not built (npx tsc -p tsconfig.json)');

/** The real `cairn lsp --stdio`, as a user's editor would start it. */
function serverCommand(): string[] {
  return [process.execPath, path.join(REPO, 'bin/cairn.js'), 'lsp', '--stdio'];
}

const elispString = (s: string) => JSON.stringify(s); // ASCII paths: JSON escapes are elisp escapes

const script = (o: { inside: string; outside: string; out: string }) => `
${PRELUDE}
(require 'markdown-mode)
(add-to-list 'load-path ${elispString(path.join(REPO, 'clients/emacs'))})
(require 'cairn)
(require 'json)
(setq cairn-command (list ${serverCommand().map(elispString).join(' ')}))
(add-hook 'markdown-mode-hook #'cairn-eglot-ensure)
(defvar got nil)
(cl-defmethod eglot-handle-notification :before
  (_server (_method (eql textDocument/publishDiagnostics)) &key diagnostics &allow-other-keys)
  (when (> (length diagnostics) 0) (setq got diagnostics)))
(defun settle () (run-hooks 'post-command-hook)) ; eglot-ensure starts from the command loop
(let (inside outside modes)
  (find-file ${elispString(o.inside)})
  (settle)
  (let ((deadline (+ (float-time) 20)))
    (while (and (not got) (< (float-time) deadline)) (accept-process-output nil 0.05)))
  (push (symbol-name major-mode) modes)
  (setq inside (and (eglot-current-server) (plist-get (eglot--server-info (eglot-current-server)) :name)))
  (find-file ${elispString(o.outside)})
  (settle)
  (push (symbol-name major-mode) modes)
  (setq outside (if (eglot-current-server) t :json-false))
  (with-temp-file ${elispString(o.out)}
    (insert (json-encode (list :modes (vconcat (reverse modes)) :inside inside :outside outside
                               :codes (mapcar (lambda (d) (plist-get d :code)) got)
                               :lines (mapcar (lambda (d) (plist-get (plist-get (plist-get d :range) :start) :line)) got))))))
(kill-emacs 0)
`;

const dirs: string[] = [];
// The server an editor started may still be writing its code cache there as it exits: retried.
afterAll(() => dirs.forEach(removeDir));

describe.skipIf(!emacsReady || notBuilt)('Emacs client (batch Emacs + Eglot, clients/emacs/cairn.el)', () => {
  it('starts the server for store files only, and Eglot gets its diagnostics', async () => {
    const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'cairn-emacs-')));
    dirs.push(tmp);
    const store = path.join(tmp, 'store');
    mkdirSync(path.join(store, 'memories'), { recursive: true });
    writeFileSync(path.join(store, 'cairn.yaml'), 'version: 1\n');
    writeFileSync(
      path.join(store, 'memories/deploy.md'),
      '---\nid: deploy\ntitle: deploy\nkind: note\nupdated: 2026-01-09\n---\nSee [[missing-id]].\n',
    );
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: store });
    mkdirSync(path.join(tmp, 'elsewhere'));
    writeFileSync(path.join(tmp, 'elsewhere/notes.md'), '# Notes\n\nSee [[missing-id]].\n');
    const out = path.join(tmp, 'emacs.json');
    writeFileSync(
      path.join(tmp, 'run.el'),
      script({
        inside: path.join(store, 'memories/deploy.md'),
        outside: path.join(tmp, 'elsewhere/notes.md'),
        out,
      }),
    );

    const stderr = await new Promise<string>((resolve) => {
      const child = execFile(
        'emacs',
        ['--batch', '-Q', '-l', path.join(tmp, 'run.el')],
        { env: { ...process.env, HOME: tmp }, timeout: 40_000 },
        (_e, _o, err) => resolve(String(err)),
      );
      child.stdin?.end();
    });
    expect(existsSync(out), `emacs wrote no result; stderr: ${stderr.slice(-2000)}`).toBe(true);
    const view = JSON.parse(readFileSync(out, 'utf8'));
    expect(view).toEqual({
      modes: ['markdown-mode', 'markdown-mode'],
      inside: 'cairn',
      outside: false,
      codes: ['ref/unknown'],
      lines: [6],
    });
  });
});
