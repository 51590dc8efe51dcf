#!/usr/bin/env node
// `npm run bench:serve`: the review page in real Chromium over generated stores of 1,000 and 10,000
// memories (with triples and [[refs]], and 10 candidates waiting). Measures:
//   - server start: `cairn serve` launched -> address printed;
//   - page load of the review page (and the memories list, and the graph when its view exists):
//     navigation -> first contentful paint, and -> the view drawn with its data (cold: a new page each
//     run; median of --runs);
//   - commit -> page: a candidate stored by `cairn store` (review page) and a commit made with plain
//     git (memories page): from the command's return to the page showing it, without a reload.
// Options: --sizes 1000,10000  --runs 3  --chromium PATH. Prints a table and writes bench/out/serve.json.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { machine, rng, sentence } from './lib.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZES = arg('sizes', '1000,10000').split(',').map(Number);
const RUNS = Number(arg('runs', '3'));
const CHROMIUM = arg('chromium', process.env.CHROMIUM_PATH ?? '/usr/bin/chromium');
const CAIRN = new URL('../bin/cairn.js', import.meta.url).pathname;
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  CAIRN_AUTHOR_NAME: 'Bench',
  CAIRN_AUTHOR_EMAIL: 'bench@example.com',
};
const ENTITIES = [
  'redis',
  'postgres',
  'kafka',
  'auth-service',
  'billing',
  'frontend',
  'ci',
  'staging',
  'prod',
  'cdn',
];
const PREDICATES = ['uses', 'depends-on', 'owned-by', 'deploys-to', 'replaces'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });

function memoryFile(i, n, rand) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const refs = Array.from(
    { length: 2 },
    () => `[[m${String(Math.floor(rand() * n)).padStart(5, '0')}]]`,
  ).join(' ');
  return [
    '---',
    `id: m${String(i).padStart(5, '0')}`,
    `title: ${sentence(rand, 5).replace(/\.$/, '')}`,
    'kind: decision',
    'created: 2026-01-01T00:00:00Z',
    'updated: 2026-01-01T00:00:00Z',
    `tags: [${pick(['infra', 'ops', 'api', 'ui'])}]`,
    'source: {agent: bench, origin: conversation}',
    'triples:',
    `  - [${pick(ENTITIES)}, ${pick(PREDICATES)}, ${pick(ENTITIES)}]`,
    '---',
    '',
    `${sentence(rand, 14)} ${sentence(rand, 18)} See ${refs}.`,
    '',
    '## Decisions',
    `- ${sentence(rand, 8)}`,
    '',
  ].join('\n');
}

function generate(n) {
  const root = mkdtempSync(path.join(os.tmpdir(), `cairn-bench-serve-${n}-`));
  execFileSync(process.execPath, [CAIRN, 'init', root], { env: GIT_ENV });
  const rand = rng(n);
  for (let i = 0; i < n; i++)
    writeFileSync(path.join(root, 'memories', `m${String(i).padStart(5, '0')}.md`), memoryFile(i, n, rand));
  git(root, 'add', '-A');
  git(root, 'commit', '-qm', `bench: ${n} memories`);
  for (let i = 0; i < 10; i++) store(root, `Candidate ${i}`, `Proposed by the bench agent, number ${i}.`);
  return root;
}

function store(root, topic, context) {
  execFileSync(
    process.execPath,
    [
      CAIRN,
      'store',
      '--topic',
      topic,
      '--context',
      context,
      '--agent',
      'bench',
      '--origin',
      'import',
      '--store',
      root,
    ],
    {
      env: GIT_ENV,
    },
  );
}

function serve(root) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CAIRN, 'serve', '--store', root], { env: GIT_ENV });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /Cairn review page: (\S+)/.exec(out);
      if (m) resolve({ url: m[1], child, startMs: performance.now() - t0 });
    });
    child.once('exit', (code) => reject(new Error(`cairn serve exited ${code}`)));
  });
}

/** Cold load of `hash` in a new page: first contentful paint and the view drawn, in ms from navigation start. */
async function load(browser, url, hash, ready) {
  const page = await browser.newPage();
  await page.goto(`${url}${hash}`);
  await page.waitForSelector(ready, { timeout: 120_000 });
  const t = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    drawn: performance.now(),
  }));
  await page.close();
  return t;
}

async function commitToPage(browser, url, hash, ready, commit, shown) {
  const page = await browser.newPage();
  await page.goto(`${url}${hash}`);
  await page.waitForSelector(ready, { timeout: 120_000 });
  await page.waitForTimeout(500); // the event stream is open and has its first fingerprint
  commit();
  const t0 = performance.now();
  await page.waitForSelector(shown, { timeout: 120_000 });
  const ms = performance.now() - t0;
  await page.close();
  return ms;
}

const results = [];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  for (const n of SIZES) {
    console.error(`generating ${n} memories ...`);
    const root = generate(n);
    const served = await serve(root);
    try {
      const row = { memories: n, serverStartMs: Math.round(served.startMs) };
      // The graph view says when its layout is drawn (#graph-canvas[data-ready]); a placeholder has none.
      const graphProbe = await (async () => {
        const page = await browser.newPage();
        await page.goto(`${served.url}#/graph`);
        await page.waitForSelector('body[data-view="graph"] h1', { timeout: 120_000 });
        const placeholder = (await page.locator('#graph-canvas').count()) === 0;
        const notice = placeholder ? '' : await page.locator('main').textContent();
        await page.close();
        return { placeholder, sampled: /sampl/i.test(notice ?? '') };
      })();
      for (const [name, hash, ready] of [
        ['review', '#/review', 'body[data-view="review"] article.candidate'],
        ['memories', '#/memories', 'body[data-view="memories"] table.list tbody tr'],
        ...(graphProbe.placeholder
          ? []
          : [['graph', '#/graph', 'body[data-view="graph"] #graph-canvas[data-ready="true"]']]),
      ]) {
        const runs = [];
        for (let r = 0; r < RUNS; r++) runs.push(await load(browser, served.url, hash, ready));
        row[`${name}FcpMs`] = Math.round(median(runs.map((x) => x.fcp)));
        row[`${name}DrawnMs`] = Math.round(median(runs.map((x) => x.drawn)));
      }
      if (graphProbe.placeholder) row.graph = 'not measured: the graph view is still a placeholder';
      else row.graphSampled = graphProbe.sampled;
      const reviewRuns = [];
      const gitRuns = [];
      for (let r = 0; r < RUNS; r++) {
        reviewRuns.push(
          await commitToPage(
            browser,
            served.url,
            '#/review',
            'article.candidate',
            () => store(root, `Live ${r}`, 'Arrives while the page is open.'),
            `article[data-id="live-${r}"]`,
          ),
        );
        gitRuns.push(
          await commitToPage(
            browser,
            served.url,
            '#/memories',
            'table.list tbody tr',
            () => {
              writeFileSync(
                path.join(root, 'memories', `hand-${r}.md`),
                `---\nid: hand-${r}\ntitle: aaa hand ${r}\nkind: note\n---\n\nBy hand.\n`,
              );
              git(root, 'add', '-A');
              git(root, 'commit', '-qm', `hand ${r}`);
            },
            `a[href="#/memory/hand-${r}"]`,
          ),
        );
      }
      row.candidateToReviewPageMs = Math.round(median(reviewRuns));
      row.gitCommitToMemoriesPageMs = Math.round(median(gitRuns));
      results.push(row);
      console.log(JSON.stringify(row));
    } finally {
      served.child.kill('SIGTERM');
      rmSync(root, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}
console.log(`\nmachine: ${machine()}; median of ${RUNS} cold loads (new page each)`);
console.table(results);
mkdirSync(new URL('./out/', import.meta.url), { recursive: true });
writeFileSync(
  new URL('./out/serve.json', import.meta.url),
  JSON.stringify({ machine: machine(), runs: RUNS, results }, null, 2),
);
