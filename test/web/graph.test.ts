// The graph view in real Chromium: the picture is drawn (cytoscape), facts outside their validity
// at the as-of date are styled as such, the predicate filter and the as-of slider redraw it, a
// click on a memory node lands on that memory's page; a big store is sampled and the page says so.
// axe-core on the view; screenshots under test-output/web/.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeStore, removeDir } from '../helpers/store.js';
import { CHROMIUM, HAVE_CHROMIUM, screenshotPath, serve, type Served } from './helpers.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const memory = (id: string, title: string, triples: string[], body = 'A memory.') =>
  [
    '---',
    `id: ${id}`,
    `title: "${title}"`,
    'kind: fact',
    'triples:',
    ...triples.map((t) => `  - ${t}`),
    '---',
    '',
    body,
    '',
  ].join('\n');

async function graphStore(extra: Record<string, string> = {}): Promise<string> {
  const { dir } = await makeStore();
  const files: Record<string, string> = {
    'team.md': memory('team', 'Who works on what', [
      '{s: Alice, p: works_on, o: billing, from: 2025-01-01, until: 2026-06-01}',
      '{s: Alice, p: works_on, o: search, from: 2026-06-01}',
      '[Bob, works_on, billing]',
    ]),
    'stack.md': memory('stack', 'Stack <script>x</script>', ['[billing, uses, postgres]'], 'See [[team]].'),
    ...extra,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, 'memories', name), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'hand edit: graph memories');
  return dir;
}

let browser: Browser;
const cleanup: (() => Promise<unknown> | void)[] = [];

async function openGraph(dir: string): Promise<Page> {
  const served: Served = await serve(['--store', dir]);
  // One step, in this order: cleanup runs newest first, and two steps pushed together ran the
  // removal before the stop, while the server was still writing its index there (CI: ENOTEMPTY).
  cleanup.push(async () => {
    await served.stop();
    removeDir(path.dirname(dir));
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  cleanup.push(() => expect(errors).toEqual([]));
  await page.goto(`${served.url}#/graph`);
  await waitDrawn(page);
  return page;
}

/** Waits for a fresh drawing (a redraw replaces the canvas). */
async function waitDrawn(page: Page): Promise<void> {
  await page.waitForSelector('body[data-view="graph"] #graph-canvas[data-ready="true"]');
}

type Cy = { $(s: string): { length: number; map<T>(f: (e: { data(k: string): T }) => T): T[] } };
const count = (page: Page, selector: string) =>
  page.evaluate(
    (s) => (document.getElementById('graph-canvas') as unknown as { cy: Cy }).cy.$(s).length,
    selector,
  );

describe.skipIf(!HAVE_CHROMIUM)('the graph view in Chromium', () => {
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    for (const f of cleanup.reverse()) await f();
  });

  it('draws the graph, restyles by the as-of slider, filters by predicate, and a click opens the memory', async () => {
    const page = await openGraph(await graphStore());
    // Today: Alice's billing fact has ended and is drawn as such, not dropped.
    expect(await count(page, 'edge.fact.ended')).toBe(1);
    expect(await count(page, 'node.memory')).toBe(3); // with the template's own memory
    await page.screenshot({ path: screenshotPath('graph'), fullPage: true });
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () =>
      (
        await (
          window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }
        ).axe.run()
      ).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
    );
    expect(violations).toEqual([]);

    // Back to the slider's first day (before 2025): the billing fact has not started yet.
    await page.focus('#g-asof');
    await page.keyboard.press('Home');
    await page.waitForFunction(() =>
      document.querySelector('#g-asof-value')?.textContent?.startsWith('2024'),
    );
    await waitDrawn(page);
    await page.waitForFunction(
      () =>
        (document.getElementById('graph-canvas') as unknown as { cy?: Cy })?.cy?.$(
          'edge[id = "fact:team:0"].future',
        ).length === 1,
    );
    await page.screenshot({ path: screenshotPath('graph-as-of'), fullPage: true });

    await page.selectOption('#g-predicate', 'uses');
    await page.waitForFunction(
      () =>
        (document.getElementById('graph-canvas') as unknown as { cy?: Cy })?.cy?.$('edge.fact').length === 1,
    );
    await waitDrawn(page);
    expect(await page.locator('.graph-list tbody tr').count()).toBe(1);

    // Click the memory node on the canvas itself.
    const at = await page.evaluate(() => {
      const canvas = document.getElementById('graph-canvas')!;
      const cy = (
        canvas as unknown as {
          cy: { getElementById(id: string): { renderedPosition(): { x: number; y: number } } };
        }
      ).cy;
      const p = cy.getElementById('memory:stack').renderedPosition();
      const box = canvas.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    });
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction(() => location.hash === '#/memory/stack');
    await page.waitForSelector('body[data-view="memory"] h1');
    expect(await page.locator('main h1').textContent()).toContain('Stack <script>x</script>');
    await page.screenshot({ path: screenshotPath('graph-click-memory'), fullPage: true });
  });

  it('samples a big graph and says so', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 220 }, (_, i) => [
        `m${i}.md`,
        memory(`m${i}`, `Memory ${i}`, [`[thing-${i}, relates_to, other-${i}]`]),
      ]),
    );
    const page = await openGraph(await graphStore(many));
    const note = await page.locator('.sampled').textContent();
    expect(note).toMatch(/^Sampled: 400 of \d+ nodes shown/);
    expect(await count(page, 'node')).toBe(400);
    await page.screenshot({ path: screenshotPath('graph-sampled'), fullPage: true });
  });
});
