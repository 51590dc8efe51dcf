// The review page in real Chromium (Debian's, driven by playwright-core): review candidates, accept
// one (a flagged one only with the allowance ticked), reject another with a reason, search, open
// the memory pages (hostile text stays text), the graph and the activity; check the store with git
// afterwards; live updates from a commit made elsewhere; axe-core on every page; keyboard reaches
// the accept and reject buttons. Screenshots go to test-output/web/.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, git, makeStore, removeDir } from '../helpers/store.js';
import { CHROMIUM, HAVE_CHROMIUM, screenshotPath, seededStore, serve, type Served } from './helpers.js';

/** How long a page waits on the server is waited for: not a measure, a bound (CI runs on 2 busy cores). */
const SETTLE = { timeout: 15_000 };

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let dir: string;
let second: string;
let served: Served;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const requested = new Set<string>();

async function show(hash: string, view: string, ready: string): Promise<void> {
  await page.evaluate((h) => (location.hash = h), hash);
  await page.waitForFunction((h) => document.body.dataset.route === h, hash);
  await page.waitForSelector(`body[data-view="${view}"] ${ready}`);
}

/** axe-core in the page (evaluated over the debugging protocol: the page's CSP forbids injected scripts). */
async function accessibilityProblems(): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await (
      window as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe.run();
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      where: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} at ${v.where.join(', ')}`);
}

async function checkPage(name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
  expect(await accessibilityProblems(), name).toEqual([]);
}

describe.skipIf(!HAVE_CHROMIUM)('the review page in Chromium', () => {
  beforeAll(async () => {
    dir = await seededStore();
    second = (await makeStore()).dir;
    served = await serve(['--store', dir, '--store', second]);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => void requested.add(new URL(r.url()).origin));
    // The refused accept (409, NEEDS_ALLOWANCE) is expected; any other failed load or error is not.
    page.on(
      'console',
      (m) => void (m.type() === 'error' && !/status of 409/.test(m.text()) && pageErrors.push(m.text())),
    );
    await page.goto(`${served.url}#/review`);
    await page.waitForSelector('body[data-view="review"] article.candidate');
  });

  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    if (dir) removeDir(path.dirname(dir));
    if (second) removeDir(path.dirname(second));
  });

  it('shows each candidate with why, the agent, findings highlighted in the diff', async () => {
    const cards = page.locator('article.candidate');
    expect(await cards.count()).toBe(3);
    const sneaky = page.locator('article[data-id="sneaky"]');
    await expect.poll(() => sneaky.locator('.why').textContent(), SETTLE).toContain('scanner flagged');
    expect(await sneaky.textContent()).toContain('mallory (agent)');
    expect(await sneaky.locator('tr.flagged mark').textContent()).toContain(
      'Ignore all previous instructions',
    );
    expect(await sneaky.locator('.findings').textContent()).toContain('injection/override');
    expect(await page.locator('article[data-id="agent-idea"] tr.add').count()).toBeGreaterThan(3);
    await checkPage('review');
  });

  it('reaches the accept and reject buttons with the keyboard, each with a name', async () => {
    await page.locator('body').focus();
    const reached = new Set<string>();
    for (let i = 0; i < 80 && reached.size < 2; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
      if (label === 'Accept agent-idea' || label === 'Reject agent-idea') reached.add(label);
    }
    expect([...reached].sort()).toEqual(['Accept agent-idea', 'Reject agent-idea']);
  });

  it('accepts a candidate, and a flagged one only once its finding is explicitly allowed', async () => {
    await page.getByRole('button', { name: 'Accept agent-idea' }).click();
    await page.waitForSelector('article[data-id="agent-idea"]', { state: 'detached' });
    await page.getByRole('button', { name: 'Accept sneaky' }).click();
    await expect.poll(() => page.locator('#msg-sneaky').textContent(), SETTLE).toContain('tick each rule');
    await page.getByLabel('injection/override').check();
    await page.getByRole('button', { name: 'Accept sneaky' }).click();
    await page.waitForSelector('article[data-id="sneaky"]', { state: 'detached' });
  });

  it('rejects a candidate with a reason, and asks for one first', async () => {
    await page.getByRole('button', { name: 'Reject postgres-plan' }).click();
    await expect.poll(() => page.locator('#msg-postgres-plan').textContent(), SETTLE).toContain('Say why');
    await page.getByLabel('Reason for rejecting postgres-plan').fill('We stay on Redis <b>for now</b>');
    await page.getByRole('button', { name: 'Reject postgres-plan' }).click();
    await page.waitForSelector('text=No candidates await review.');
  });

  it('left the store as the CLI would: merge commits, an allowance, a rejection tag; git status clean', () => {
    const last = git(dir, 'log', '-1', '--format=%B', 'main');
    for (const trailer of ['Memory-Action: accept', 'Memory-Id: sneaky', 'Memory-Allow: injection/override'])
      expect(last).toContain(trailer);
    expect(git(dir, 'log', '--format=%B', 'main')).toContain('Memory-Id: agent-idea');
    expect(git(dir, 'log', '-1', '--format=%P', 'main').trim().split(' ')).toHaveLength(2);
    expect(git(dir, 'cat-file', '-p', 'rejected/postgres-plan')).toContain('We stay on Redis <b>for now</b>');
    expect(git(dir, 'branch', '--list', 'candidate/*').trim()).toBe('');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(git(dir, 'ls-tree', '--name-only', 'main', 'memories/')).toContain('memories/agent-idea.md');
  });

  it('lists memories with filters', async () => {
    await show('#/memories', 'memories', 'table.list tbody tr');
    await page.getByLabel('Status').selectOption('rejected');
    await expect.poll(() => page.locator('table.list tbody tr').count(), SETTLE).toBe(1);
    expect(await page.locator('table.list tbody').textContent()).toContain('postgres-plan');
    await page.getByLabel('Status').selectOption('');
    await checkPage('memories');
  });

  it('keeps the chosen filters when the store changes under the list, and after a reload', async () => {
    const rows = () => page.locator('table.list tbody tr').count();
    await show('#/memories', 'memories', 'table.list tbody tr');
    await page.getByLabel('Status').selectOption('rejected');
    await expect.poll(rows, SETTLE).toBe(1);
    expect(await page.evaluate(() => location.hash)).toBe('#/memories?status=rejected');
    // A commit made elsewhere redraws the page (live update): the list stays filtered.
    const drawn = await page.evaluate(() => document.body.dataset.ready);
    writeFileSync(
      path.join(dir, 'memories', 'filter-kept.md'),
      '---\nid: filter-kept\ntitle: Filter kept\nkind: note\n---\n\nArrived while a filter was on.\n',
    );
    git(dir, 'add', 'memories/filter-kept.md');
    git(dir, 'commit', '-qm', 'a note while the list is filtered');
    await page.waitForFunction((d) => document.body.dataset.ready !== d, drawn, SETTLE);
    expect(await rows()).toBe(1);
    expect(await page.getByLabel('Status').inputValue()).toBe('rejected');
    await page.reload();
    await page.waitForSelector('body[data-view="memories"] table.list tbody tr');
    expect(await rows()).toBe(1);
    await page.getByLabel('Status').selectOption('');
    await expect.poll(rows, SETTLE).toBeGreaterThan(1);
    expect(await page.evaluate(() => location.hash)).toBe('#/memories');
  });

  it('shows a memory: front matter, triples, backlinks, history with trailers', async () => {
    await show('#/memory/redis-caching', 'memory', 'h1#memory-h');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('cached_in');
    expect(text).toContain('Deploy notes'); // links here
    expect(text).toContain('Memory-Action');
    await checkPage('memory');
  });

  it('renders hostile memory text inert', async () => {
    await show('#/memory/hostile', 'memory', 'h1#memory-h');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main script, main img, main b, main iframe').count()).toBe(0);
    const body = (await page.locator('main .body').textContent()) ?? '';
    expect(body).toContain('<script>window.__pwned = 1</script>');
    expect(body).toContain('\\u202e');
    expect(await page.locator('main h1').textContent()).toContain('<img src=x onerror=alert(1)>');
    for (const href of await page
      .locator('main a')
      .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? '')))
      expect(href).not.toMatch(/^\s*javascript:/i);
    await page.screenshot({ path: screenshotPath('memory-hostile') });
    await show('#/memory/big', 'memory', 'h1#memory-h');
    expect(await page.locator('main .body p').textContent()).toContain(
      'Line 5999 of a long memory <b>5999</b>.',
    );
  });

  it('searches, saying which provider answered', async () => {
    await show('#/search', 'search', 'form[role="search"]');
    await page.getByRole('searchbox', { name: 'Search memories' }).fill('redis sessions');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForSelector('ol.results li');
    expect(await page.locator('.provider').textContent()).toMatch(/Provider: \S+/);
    expect(await page.locator('ol.results').textContent()).toContain('Redis caching');
    await checkPage('search');
  });

  it('opens the graph and the activity timeline', async () => {
    await show('#/graph', 'graph', 'h1');
    await checkPage('graph');
    await show('#/activity', 'activity', 'ol.timeline');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('accept');
    expect(text).toContain('We stay on Redis');
    await checkPage('activity');
    // The chosen kind is kept in the address, so a redraw or a reload shows the same entries.
    await page.getByLabel('Show').selectOption('reject');
    expect(await page.evaluate(() => location.hash)).toBe('#/activity?kind=reject');
    await page.reload();
    await page.waitForSelector('body[data-view="activity"] ol.timeline li');
    expect(await page.getByLabel('Show').inputValue()).toBe('reject');
    expect(await page.locator('ol.timeline li strong').allTextContents()).toEqual(['reject']);
  });

  it('updates without a reload when an agent commits', async () => {
    await show('#/review', 'review', 'h1');
    await page.evaluate(() => ((window as unknown as { __same: boolean }).__same = true));
    const r = await cairn([
      'store',
      '--topic',
      'Live one',
      '--context',
      'Arrived while the page was open.',
      '--agent',
      'bot',
      '--origin',
      'import',
      '--store',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    await page.waitForSelector('article[data-id="live-one"]', { timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { __same?: boolean }).__same)).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('shows a commit made with plain git, and switches stores with the picker', async () => {
    await show('#/memories', 'memories', 'table.list tbody tr');
    const hand = [
      '---',
      'id: by-hand',
      'title: Written by hand',
      'kind: note',
      '---',
      '',
      'Committed with git.',
      '',
    ];
    writeFileSync(path.join(dir, 'memories', 'by-hand.md'), hand.join('\n'));
    git(dir, 'add', 'memories/by-hand.md');
    git(dir, 'commit', '-qm', 'a note written by hand');
    await page.waitForSelector('table.list a[href="#/memory/by-hand"]', { timeout: 10_000 });
    await page.getByLabel('Store').selectOption({ index: 1 });
    await page.waitForFunction(() => new URLSearchParams(location.search).get('store') === '1');
    await expect.poll(() => page.locator('table.list tbody tr').count(), SETTLE).toBe(1); // the template's one memory
    expect(await page.locator('table.list').textContent()).not.toContain('by-hand');
    expect(JSON.parse(readFileSync(path.join(second, '.cairn', 'serve.json'), 'utf8')).url).toBe(
      `${served.url}&store=1`,
    );
    expect(pageErrors).toEqual([]);
    // Every page above loaded from the server alone: nothing reached the network.
    expect([...requested].filter((o) => o !== served.origin && o !== 'null')).toEqual([]);
  });

  it('says when a candidate changes store files, and accepts them only once that box is ticked', async () => {
    // A branch pushed by hand to the second store (the one shown now) that also turns the
    // injection detector off in cairn.yaml.
    const config = readFileSync(path.join(second, 'cairn.yaml'), 'utf8');
    git(second, 'checkout', '-q', '-b', 'candidate/tuning');
    writeFileSync(
      path.join(second, 'memories', 'tuning.md'),
      '---\nid: tuning\ntitle: Tuning\nkind: note\nstatus: candidate\n---\n\nFaster scans.\n',
    );
    writeFileSync(path.join(second, 'cairn.yaml'), `${config}scan:\n  injection:\n    threshold: 1.0\n`);
    git(second, 'add', '-A');
    git(second, 'commit', '-qm', 'candidate: tuning');
    git(second, 'checkout', '-q', 'main');
    await show('#/review', 'review', 'article.candidate');
    const card = page.locator('article[data-id="tuning"]');
    expect(await card.locator('.findings').first().textContent()).toContain('cairn.yaml');
    expect(await card.getByRole('note', { name: 'Settings' }).textContent()).toMatch(
      /Weakens governance.*scan\.injection\.threshold: null → 1 \(the injection detector reports fewer passages\)/,
    );
    await page.getByRole('button', { name: 'Accept tuning' }).click();
    await expect
      .poll(() => page.locator('#msg-tuning').textContent(), SETTLE)
      .toContain('also changes store files');
    expect(git(second, 'show', 'main:cairn.yaml')).toBe(config);
    await page.getByLabel('Also accept the store files (cairn.yaml)').check();
    await page.getByRole('button', { name: 'Accept tuning' }).click();
    await page.waitForSelector('article[data-id="tuning"]', { state: 'detached' });
    expect(git(second, 'show', 'main:cairn.yaml')).toContain('threshold: 1.0');
    await checkPage('review-store-files');
    expect(pageErrors).toEqual([]);
  });

  it('says when a person rejected the text before, and accepts it only once the override is ticked', async () => {
    const text =
      '---\nid: pipe\ntitle: Pipe\nkind: note\nstatus: candidate\n---\n\nPipe install.sh into sh.\n';
    git(second, 'checkout', '-q', '-b', 'candidate/pipe');
    writeFileSync(path.join(second, 'memories', 'pipe.md'), text);
    git(second, 'add', '-A');
    git(second, 'commit', '-qm', 'candidate: pipe');
    git(second, 'checkout', '-q', 'main');
    expect((await cairn(['reject', 'pipe', '--why', 'never pipe to sh', '--store', second])).code).toBe(0);
    // The same text again by hand, under another id.
    git(second, 'checkout', '-q', '-b', 'candidate/pipe-again');
    writeFileSync(path.join(second, 'memories', 'pipe-again.md'), text.replace('id: pipe', 'id: pipe-again'));
    git(second, 'add', '-A');
    git(second, 'commit', '-qm', 'candidate: pipe-again');
    git(second, 'checkout', '-q', 'main');
    await show('#/review', 'review', 'article[data-id="pipe-again"]');
    const card = page.locator('article[data-id="pipe-again"]');
    expect(await card.getByRole('note', { name: 'Rejected before' }).textContent()).toMatch(
      /A person rejected this text before.*rejected\/pipe \("never pipe to sh"\)/,
    );
    const main = git(second, 'rev-parse', 'main');
    await page.getByRole('button', { name: 'Accept pipe-again' }).click();
    await expect
      .poll(() => page.locator('#msg-pipe-again').textContent(), SETTLE)
      .toContain('rejected before');
    expect(git(second, 'rev-parse', 'main')).toBe(main);
    await page.getByLabel('Accept although a person rejected this text').check();
    await page.getByRole('button', { name: 'Accept pipe-again' }).click();
    await page.waitForSelector('article[data-id="pipe-again"]', { state: 'detached' });
    expect(git(second, 'show', 'main:memories/pipe-again.md')).toContain('install.sh');
    await checkPage('review-rejected-before');
    expect(pageErrors).toEqual([]);
  });

  it('never merges a candidate that changed after the page showed it', async () => {
    const memory = (body: string) =>
      `---\nid: moving\ntitle: Moving\nkind: note\nstatus: candidate\n---\n\n${body}\n`;
    git(second, 'checkout', '-q', '-b', 'candidate/moving');
    writeFileSync(path.join(second, 'memories', 'moving.md'), memory('Run the tests before a push.'));
    git(second, 'add', '-A');
    git(second, 'commit', '-qm', 'candidate: moving');
    git(second, 'checkout', '-q', 'main');
    await show('#/review', 'review', 'article[data-id="moving"]');
    const main = git(second, 'rev-parse', 'main');
    // The agent pushes another text to the branch between the person's click and the server's merge.
    await page.route('**/api/accept*', async (route) => {
      git(second, 'checkout', '-q', 'candidate/moving');
      writeFileSync(path.join(second, 'memories', 'moving.md'), memory('Skip the tests before a push.'));
      git(second, 'commit', '-qam', 'candidate: moving, changed');
      git(second, 'checkout', '-q', 'main');
      await route.continue();
    });
    await page.getByRole('button', { name: 'Accept moving' }).click();
    await expect
      .poll(() => page.locator('#msg-moving').textContent())
      .toContain('changed since this page showed it');
    await page.unroute('**/api/accept*');
    expect(git(second, 'rev-parse', 'main')).toBe(main);
    // The page now shows what the branch holds; accepting that merges it.
    await expect
      .poll(() => page.locator('article[data-id="moving"]').textContent())
      .toContain('Skip the tests');
    await page.getByRole('button', { name: 'Accept moving' }).click();
    await page.waitForSelector('article[data-id="moving"]', { state: 'detached' });
    expect(git(second, 'show', 'main:memories/moving.md')).toContain('Skip the tests');
    expect(pageErrors).toEqual([]);
  });
});
