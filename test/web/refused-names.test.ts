// Candidates whose names the review page refuses (a teammate pushed `candidate/evil$(...)`, a name
// starting with "-", a name with a bidi control), drawn in real Chromium: the card says why the page
// does not act on it and gives the commands that do, quoted for the shell, and shows no buttons that
// would fail; a request naming it is refused, saying why, and moves no ref.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAIRN_BIN, GIT_ENV, git, makeStore, removeDir } from '../helpers/store.js';
import { CHROMIUM, HAVE_CHROMIUM, request, screenshotPath, serve, type Served } from './helpers.js';

let dir: string;
let pwned: string;
let evil: string;
const dash = '-rf';
const bidi = 'notes\u202Etxt.md';
let served: Served;
let browser: Browser;
let page: Page;

/** A candidate branch committed with plain git, as a teammate pushes one (no Memory-Id trailer). */
function pushByHand(branch: string, file: string): void {
  git(dir, 'checkout', '-q', '-b', branch, 'main');
  writeFileSync(
    path.join(dir, 'memories', `${file}.md`),
    ['---', `id: ${file}`, `title: ${file}`, 'kind: note', '---', '', `A note from ${file}.`, ''].join('\n'),
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', `store(add): ${file}`);
  git(dir, 'checkout', '-q', 'main');
}

const refs = () => git(dir, 'for-each-ref', '--format=%(refname) %(objectname)');
/** The card of candidate `id` (an attribute value in a selector: only `"` and `\` need escaping). */
const card = (id: string) =>
  page.locator(`article.candidate[data-id="${id.replace(/["\\]/g, (c) => `\\${c}`)}"]`);

/** What a person copies into a shell: run by sh, with `cairn` the built CLI. */
function paste(command: string): string {
  const bin = path.join(path.dirname(dir), 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    path.join(bin, 'cairn'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CAIRN_BIN)} "$@"\n`,
  );
  chmodSync(path.join(bin, 'cairn'), 0o755);
  return execFileSync('sh', ['-c', command], {
    cwd: path.dirname(dir),
    env: { ...process.env, ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` },
    encoding: 'utf8',
  });
}

describe.skipIf(!HAVE_CHROMIUM)('the review page on candidates whose names it refuses', () => {
  let before: string;

  beforeAll(async () => {
    dir = (await makeStore()).dir;
    pwned = path.join(path.dirname(dir), 'PWN');
    evil = `evil$(touch\${IFS}${pwned})`;
    pushByHand(`candidate/${evil}`, 'evil');
    pushByHand(`candidate/${dash}`, 'dash');
    pushByHand(`candidate/${bidi}`, 'bidi');
    pushByHand('candidate/plain', 'plain');
    before = refs();
    served = await serve(['--store', dir]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${served.url}#/review`);
    await page.waitForSelector('body[data-view="review"] article.candidate');
  });

  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    if (dir) removeDir(path.dirname(dir));
  });

  it('says on the card why the page refuses the name and gives the commands, with no buttons', async () => {
    expect(await page.locator('article.candidate').count()).toBe(4);
    const note = card(evil).getByRole('note', { name: 'Accept or reject it in a terminal' });
    const text = await note.textContent();
    expect(text).toContain('This page does not accept or reject this candidate');
    expect(text).toContain(
      'its name holds "$" (U+0024), and the page takes only the letters a-z, digits, ".", "_", "-" and "/"',
    );
    expect(await note.locator('pre').allTextContents()).toEqual([
      `cairn accept --store ${dir} 'evil$(touch\${IFS}${pwned})'`,
      `cairn reject --store ${dir} --why "..." 'evil$(touch\${IFS}${pwned})'`,
    ]);
    // The name stays text: nothing of it became an element.
    expect(await note.locator('pre code *').count()).toBe(0);
    expect(await card(evil).locator('button, textarea, input').count()).toBe(0);
    await card(evil).screenshot({ path: screenshotPath('review-refused-name') });

    const dashNote = card(dash).getByRole('note', { name: 'Accept or reject it in a terminal' });
    expect(await dashNote.textContent()).toContain('its part "-rf" starts with "-"');
    expect(await dashNote.locator('pre').allTextContents()).toEqual([
      `cairn accept --store ${dir} -- -rf`,
      `cairn reject --store ${dir} --why "..." -- -rf`,
    ]);
    expect(await card(dash).locator('button').count()).toBe(0);

    // A character that does not show is named, and written in the command as bytes printf makes.
    const bidiNote = card(bidi).getByRole('note', { name: 'Accept or reject it in a terminal' });
    expect(await bidiNote.textContent()).toContain('its name holds U+202E (a character that does not show)');
    expect(await bidiNote.locator('pre').first().textContent()).toBe(
      `cairn accept --store ${dir} "$(printf 'notes\\342\\200\\256txt.md')"`,
    );
    expect(await card(bidi).locator('button').count()).toBe(0);

    // A name the page takes keeps its buttons and has no such note.
    expect(await card('plain').getByRole('button', { name: 'Accept plain' }).count()).toBe(1);
    expect(await card('plain').getByRole('note', { name: 'Accept or reject it in a terminal' }).count()).toBe(
      0,
    );
    expect(refs()).toBe(before);
  });

  it('refuses an accept or a reject naming it, saying why, and moves no ref', async () => {
    const post = (route: string, body: unknown) =>
      request(served.port, {
        method: 'POST',
        path: `/api/${route}`,
        body: JSON.stringify(body),
        headers: {
          Host: `127.0.0.1:${served.port}`,
          'X-Cairn-Token': served.token,
          Origin: served.origin,
          'Content-Type': 'application/json',
        },
      });
    const accepted = await post('accept', { id: evil });
    expect(accepted.status).toBe(400);
    const error = JSON.parse(accepted.body).error;
    expect(error.code).toBe('INVALID_ID');
    expect(error.message).toContain('the review page refuses this name: its name holds "$" (U+0024)');
    expect(error.message).toContain(`accept it in a terminal: cairn accept --store ${dir} 'evil$(`);
    const rejected = await post('reject', { id: dash, why: 'no' });
    expect(rejected.status).toBe(400);
    expect(JSON.parse(rejected.body).error.message).toContain(
      `reject it in a terminal: cairn reject --store ${dir} --why "..." -- -rf`,
    );
    expect(refs()).toBe(before);
    expect(existsSync(pwned)).toBe(false);
  });

  it('gives commands that, pasted into a shell, act on exactly that candidate and run nothing else', async () => {
    const [accept] = await card(evil).locator('pre').allTextContents();
    expect(paste(accept)).toContain('accepted');
    expect(existsSync(pwned)).toBe(false);
    expect(git(dir, 'branch', '--list', 'candidate/evil*')).toBe('');
    expect(git(dir, 'show', 'main:memories/evil.md')).toContain('A note from evil.');

    const bidiAccept = await card(bidi).locator('pre').first().textContent();
    expect(paste(bidiAccept!)).toContain('accepted');
    expect(git(dir, 'show', 'main:memories/bidi.md')).toContain('A note from bidi.');

    const [, reject] = await card(dash).locator('pre').allTextContents();
    expect(paste(reject)).toContain('rejected');
    expect(git(dir, 'tag', '--list', 'rejected/*')).toBe('rejected/-rf\n');
    expect(git(dir, 'branch', '--list')).toBe('  candidate/plain\n* main\n');
  });
});
