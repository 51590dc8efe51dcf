// Generates a store of realistic memory files (front matter + context/Decisions/Rationale body,
// 150-400 words from a Zipf-distributed vocabulary of a few thousand words) for bench/search.mjs.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { rng } from './lib.mjs';

export { rng };

const COMMON = new URL('../test/fixtures/models/common-words.txt', import.meta.url);
const TECH =
  'redis postgres sqlite kafka queue cache session token oauth jwt docker kubernetes helm terraform lambda ' +
  'webpack vite eslint prettier typescript react vue svelte graphql rest grpc protobuf migration schema index ' +
  'shard replica backup retry backoff timeout idempotent webhook cron worker pipeline deploy rollback canary ' +
  'feature flag metrics tracing logging alert oncall incident latency throughput memory leak profiler bundle';

/** About 4,000 words: 2,000 common English words, tech terms, and made-up identifiers. */
export function vocabulary(random) {
  const common = readFileSync(COMMON, 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  const syll = [
    'ka',
    'lo',
    'mi',
    'ter',
    'on',
    'ex',
    'ra',
    'vin',
    'dul',
    'pre',
    'sto',
    'quo',
    'zen',
    'fa',
    'gri',
  ];
  const made = Array.from({ length: 1900 }, () => {
    const n = 2 + Math.floor(random() * 3);
    return Array.from({ length: n }, () => syll[Math.floor(random() * syll.length)]).join('');
  });
  return [...new Set([...TECH.split(' '), ...common, ...made])];
}

/** Zipf sampler over the vocabulary (rank r drawn with weight 1/r). */
export function zipf(words, random) {
  const cdf = [];
  let total = 0;
  for (let r = 1; r <= words.length; r++) cdf.push((total += 1 / r));
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
}

const sentence = (word, random, n) => {
  const words = Array.from({ length: n }, word);
  words[0] = words[0][0].toUpperCase() + words[0].slice(1);
  return words.join(' ') + '.';
};

/** One memory file's text. */
export function memoryFile(i, word, random) {
  const title = Array.from({ length: 3 + Math.floor(random() * 4) }, word).join(' ');
  const tags = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `t${Math.floor(random() * 50)}`);
  const day = new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 700) * 86_400_000)
    .toISOString()
    .slice(0, 10);
  const target = 150 + Math.floor(random() * 250);
  const para = (words) => {
    const out = [];
    let n = 0;
    while (n < words) {
      const len = 8 + Math.floor(random() * 12);
      out.push(sentence(word, random, len));
      n += len;
    }
    return out.join(' ');
  };
  const decisions = Array.from(
    { length: 2 + Math.floor(random() * 3) },
    () => `- ${sentence(word, random, 8 + Math.floor(random() * 8))}`,
  );
  return [
    '---',
    `id: mem-${i}`,
    `title: ${title}`,
    'kind: decision',
    `tags: [${tags.join(', ')}]`,
    `created: ${day}`,
    `updated: ${day}`,
    'source: { agent: bench, origin: conversation }',
    '---',
    `# ${title}`,
    '',
    para(Math.floor(target * 0.45)),
    '',
    '## Decisions',
    ...decisions,
    '',
    '## Rationale',
    para(Math.floor(target * 0.35)),
    '',
  ].join('\n');
}

/** Writes `<dir>/memories/mem-<i>.md` for i < count unless a previous run left the same store. */
export function generateStore(dir, count, seed = 42) {
  const marker = join(dir, '.generated');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === `${count}:${seed}`) return;
  const random = rng(seed);
  const word = zipf(vocabulary(random), random);
  mkdirSync(join(dir, 'memories'), { recursive: true });
  for (let i = 0; i < count; i++)
    writeFileSync(join(dir, 'memories', `mem-${i}.md`), memoryFile(i, word, random));
  writeFileSync(marker, `${count}:${seed}`);
}

/** Queries of 2-4 words drawn like the text (so they hit realistic posting sizes). */
export function queries(count, seed = 7) {
  const random = rng(seed);
  const word = zipf(vocabulary(rng(42)), random);
  return Array.from({ length: count }, () =>
    Array.from({ length: 2 + Math.floor(random() * 3) }, word).join(' '),
  );
}

// ---------------------------------------------------------------------------------------------
// Stores generated from SciFact (5,183 biomedical abstracts, ../shared/data/scifact): real prose and
// a real vocabulary. Memory i takes abstract i mod 5,183; past the first round its sentences are
// rotated and its title borrows a word pair from another abstract, so no two files are identical.

const SCIFACT = new URL('../../shared/data/scifact/', import.meta.url).pathname;

function readJsonl(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The SciFact corpus and its train claims (as queries), or null when the data is not there. */
export function scifact(dir = SCIFACT) {
  if (!existsSync(join(dir, 'corpus.beir.jsonl'))) return null;
  const corpus = readJsonl(join(dir, 'corpus.beir.jsonl')).filter((d) => d.text && d.title);
  const claims = readJsonl(join(dir, 'queries.train.beir.jsonl')).map((q) => q.text);
  return { corpus, claims };
}

const yamlString = (s) => JSON.stringify(s.replace(/\s+/g, ' ').trim());

/** One memory file built from an abstract. */
export function scifactMemory(i, corpus) {
  const doc = corpus[i % corpus.length];
  const round = Math.floor(i / corpus.length);
  let sentences = doc.text.split(/(?<=\.)\s+/).filter(Boolean);
  let title = doc.title.replace(/\.$/, '');
  if (round > 0) {
    const k = round % Math.max(1, sentences.length);
    sentences = [...sentences.slice(k), ...sentences.slice(0, k)];
    const other = corpus[(i * 7919) % corpus.length].title.split(/\s+/).slice(0, 2).join(' ');
    title = `${title} (${other}, ${round})`;
  }
  const decisions = sentences.slice(-2);
  const context = sentences.slice(0, Math.max(1, sentences.length - 2)).join(' ');
  const day = new Date(Date.UTC(2024, 0, 1) + ((i * 37) % 700) * 86_400_000).toISOString().slice(0, 10);
  return [
    '---',
    `id: sf-${i}`,
    `title: ${yamlString(title)}`,
    'kind: fact',
    `tags: [scifact, t${i % 40}]`,
    `created: ${day}`,
    `updated: ${day}`,
    'source: { agent: bench, origin: conversation }',
    '---',
    `# ${title}`,
    '',
    context,
    '',
    '## Decisions',
    ...decisions.map((d) => `- ${d}`),
    '',
  ].join('\n');
}

/**
 * A git-backed Cairn store of `count` SciFact memories at `dir` (cairn.yaml, memories/, one commit
 * made with the git CLI), reused when a previous run left the same one. Returns false without data.
 */
export function generateScifactStore(dir, count, execFileSync) {
  const marker = join(dir, '.git', 'cairn-bench-generated');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === `scifact:${count}`) return true;
  const data = scifact();
  if (!data) return false;
  mkdirSync(join(dir, 'memories'), { recursive: true });
  writeFileSync(join(dir, 'cairn.yaml'), 'version: 1\n');
  writeFileSync(join(dir, '.gitignore'), '.cairn/\n');
  writeFileSync(join(dir, 'MEMORY.md'), '# Memory\n');
  for (let i = 0; i < count; i++)
    writeFileSync(join(dir, 'memories', `sf-${i}.md`), scifactMemory(i, data.corpus));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
  };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: 'pipe', maxBuffer: 1 << 30 });
  if (!existsSync(join(dir, '.git'))) git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', `bench: ${count} SciFact memories`, '--allow-empty');
  writeFileSync(marker, `scifact:${count}`);
  return true;
}

/** SciFact claims as queries (deterministic sample), or generated ones without the data. */
export function scifactQueries(count) {
  const data = scifact();
  if (!data) return queries(count);
  const random = rng(11);
  return Array.from({ length: count }, () => data.claims[Math.floor(random() * data.claims.length)]);
}
