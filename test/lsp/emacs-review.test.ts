// Review from Emacs: clients/emacs/cairn.el's `cairn-review', `cairn-accept' and `cairn-reject' in a
// real Emacs with Eglot (batch mode), against the built server and a store made by the built CLI.
// Before, Emacs had no way to accept or reject; and the server's question for an accept that needs a
// person's word ("Accept anyway") was never put to Eglot, which does not declare it can answer.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAIRN_BIN, cliStores, git, GIT_ENV, TEST_AUTHOR, type CliStore } from '../helpers/store.js';
import { EMACS_PREAMBLE } from './lsp-helper.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const CAIRN_EL = path.join(REPO, 'clients/emacs/cairn.el');
const SERVER_CMD = [process.execPath, CAIRN_BIN, 'lsp', '--stdio'];
const { newStore } = cliStores();

function missing(): string | null {
  if (!existsSync(path.join(REPO, 'dist/lsp/index.js'))) return 'dist/lsp is not built';
  if (spawnSync('sh', ['-c', 'command -v emacs']).status !== 0) return 'emacs is not on PATH';
  return null;
}
const skip = missing();
if (skip) console.warn(`skipping Emacs review test: ${skip}`);

/**
 * Runs `body` (elisp) in a batch Emacs visiting the store's MEMORY.md with the Cairn server
 * connected through cairn.el. The minibuffer's questions are answered with `answer` and recorded.
 * What `body` returns is written out as JSON.
 */
function inEmacs(s: CliStore, body: string, answer = 'Cancel'): { result: unknown; asked: string[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-emacs-review-'));
  const script = path.join(dir, 'review.el');
  const out = path.join(dir, 'out.json');
  writeFileSync(
    script,
    `${EMACS_PREAMBLE}(require 'json)
(load-file (getenv "CAIRN_EL"))
(setq cairn-command (append (json-read-from-string (getenv "CAIRN_CMD")) nil))
(add-to-list 'cairn-major-modes 'fundamental-mode)
(add-to-list 'eglot-server-programs
             (cons cairn-major-modes (lambda (&rest _) (cons 'cairn-eglot-server cairn-command))))
(let ((eglot-sync-connect t)
      (asked '())
      (result nil))
  (find-file (expand-file-name "MEMORY.md" (getenv "CAIRN_ROOT")))
  (apply #'eglot (eglot--guess-contact))
  (cl-letf (((symbol-function 'completing-read)
             (lambda (prompt &rest _) (push prompt asked) (getenv "CAIRN_ANSWER"))))
    (setq result (condition-case err (progn ${body}) (error (list :error (error-message-string err))))))
  (with-temp-file (getenv "CAIRN_OUT")
    (insert (json-encode (list :result result :asked (vconcat (nreverse asked))))))
  (kill-emacs 0))
`,
  );
  execFileSync('emacs', ['--batch', '-Q', '-l', script], {
    env: {
      ...process.env,
      ...GIT_ENV,
      CAIRN_AUTHOR_NAME: TEST_AUTHOR.name,
      CAIRN_AUTHOR_EMAIL: TEST_AUTHOR.email,
      HOME: dir,
      CAIRN_EL,
      CAIRN_CMD: JSON.stringify(SERVER_CMD),
      CAIRN_ROOT: s.dir,
      CAIRN_OUT: out,
      CAIRN_ANSWER: answer,
    },
    stdio: 'ignore',
    timeout: 90_000,
  });
  return JSON.parse(readFileSync(out, 'utf8'));
}

/** An agent's low-confidence note: a candidate branch. Returns its id. */
async function candidate(s: CliStore, topic: string): Promise<string> {
  const r = await s.store({
    topic,
    context: `${topic}: the team agreed on this in the planning meeting, for the reasons in the ticket.`,
    agentName: 'scout',
    confidence: 0.7,
  });
  expect(r.metadata.status).toBe('candidate');
  return r.metadata.topic_id as string;
}

const onMain = (s: CliStore, id: string) =>
  git(s.dir, 'ls-tree', '--name-only', 'main', 'memories/').includes(`memories/${id}.md`);

describe.skipIf(skip)('Emacs: review, accept and reject through cairn.el', () => {
  it('lists candidates, accepts one into main and rejects another with its reason', async () => {
    const s = await newStore();
    const keep = await candidate(s, 'Deploys go through staging');
    const drop = await candidate(s, 'Pipe the installer into sh');
    const r = inEmacs(
      s,
      `(list :listed (vconcat (mapcar (lambda (c) (plist-get c :pick)) (cairn-review)))
             :accepted (plist-get (cairn-accept "${keep}") :id)
             :rejected (plist-get (cairn-reject "${drop}" "never pipe to sh") :id))`,
    );
    expect(r.result).toEqual({ listed: [keep, drop].sort(), accepted: keep, rejected: drop });
    expect(onMain(s, keep)).toBe(true);
    expect(onMain(s, drop)).toBe(false);
    expect(git(s.dir, 'branch', '--list', 'candidate/*')).toBe('');
    expect(git(s.dir, 'tag', '--list', 'rejected/*').trim()).toBe(`rejected/${drop}`);
    expect(git(s.dir, 'tag', '-l', '--format=%(contents)', `rejected/${drop}`)).toContain('never pipe to sh');
  });

  it('asks in the minibuffer when a candidate changes cairn.yaml; only "Accept anyway" merges', async () => {
    const s = await newStore();
    git(s.dir, 'checkout', '-q', '-b', 'candidate/sneaky');
    writeFileSync(
      path.join(s.dir, 'memories/sneaky.md'),
      '---\nid: sneaky\ntitle: sneaky\nkind: note\nstatus: candidate\norigin: conversation\ncreated: 2026-12-01\n---\n\nUse pnpm.\n',
    );
    writeFileSync(
      path.join(s.dir, 'cairn.yaml'),
      `${readFileSync(path.join(s.dir, 'cairn.yaml'), 'utf8')}scan:\n  injection:\n    threshold: 1.0\n`,
    );
    git(s.dir, 'add', '-A');
    git(s.dir, 'commit', '-qm', 'candidate: sneaky');
    git(s.dir, 'checkout', '-q', 'main');

    const cancelled = inEmacs(s, `(cairn-accept "sneaky")`, 'Cancel');
    expect(cancelled.asked).toHaveLength(1);
    expect(cancelled.asked[0]).toContain('cairn.yaml');
    expect(cancelled.result).toMatchObject({ error: expect.stringContaining('not accepted') });
    expect(onMain(s, 'sneaky')).toBe(false);

    const accepted = inEmacs(s, `(plist-get (cairn-accept "sneaky") :id)`, 'Accept anyway');
    expect(accepted.asked).toHaveLength(1);
    expect(accepted.result).toBe('sneaky');
    expect(onMain(s, 'sneaky')).toBe(true);
  });
});
