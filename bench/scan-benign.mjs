// False positives of the scanner's rules on benign text: how many texts get a finding, by rule.
// Corpora: the benign half of ../shared/data/injection, SciFact, STS sentences, and the .md / .txt /
// README files under node_modules and /usr/share/doc (READMEs and build notes full of commands).
// Run it before and after changing a rule (on both trees' dist/) and compare.
// Usage: npm run build && node bench/scan-benign.mjs [--codes REGEX] [--show]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { scanText } from '../dist/core/scan/scan.js';

const { values: args } = parseArgs({
  options: {
    codes: { type: 'string', default: '^(injection|secret)/' },
    show: { type: 'boolean', default: false },
  },
});
const codes = new RegExp(args.codes);
const root = path.resolve(import.meta.dirname, '..');
const data = path.join(root, '..', 'shared', 'data');
const jsonl = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const read = (file) => {
  try {
    return statSync(file).size < 500_000 ? readFileSync(file, 'utf8') : null;
  } catch {
    return null;
  }
};
function docs(dir, depth = 0, out = []) {
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && depth < 6 && e.name !== '.bin') docs(p, depth + 1, out);
    else if (e.isFile() && /\.(md|markdown|txt)$|^readme/i.test(e.name)) out.push(p);
  }
  return out;
}

const injection = ['train-extra.jsonl', 'deepset-train.jsonl'].flatMap((f) =>
  jsonl(path.join(data, 'injection', f)),
);
const corpora = {
  'injection sets, benign half': injection.filter((r) => r.label === 0).map((r) => r.text),
  'SciFact abstracts': jsonl(path.join(data, 'scifact', 'corpus.beir.jsonl')).map(
    (r) => `${r.title}\n${r.text}`,
  ),
  'STS sentences': readFileSync(path.join(data, 'sts', 'sts-train.tsv'), 'utf8')
    .split('\n')
    .flatMap((l) => l.split('\t').slice(5, 7)),
  'docs under node_modules and /usr/share/doc': [
    ...docs(path.join(root, 'node_modules')),
    ...docs('/usr/share/doc'),
  ]
    .map(read)
    .filter((t) => t !== null),
};
for (const [name, texts] of Object.entries(corpora)) {
  let hit = 0;
  const byCode = {};
  for (const text of texts) {
    const found = scanText(text).filter((f) => codes.test(f.code) && f.severity !== 'info');
    if (!found.length) continue;
    hit++;
    for (const f of found) {
      byCode[f.code] = (byCode[f.code] ?? 0) + 1;
      if (args.show) console.log(`   ${f.code}: ${JSON.stringify(f.matched)}`);
    }
  }
  console.log(`${name}: ${hit} of ${texts.length} texts with a finding ${JSON.stringify(byCode)}`);
}
