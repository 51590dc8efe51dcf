// What the learned injection detector adds to `cairn check` on a store of 10,000 memories: the
// built CLI with the model, then with the weights switched off (CAIRN_INJECTION_MODEL pointing at
// nothing: the rules alone, as before the model), and optionally another checkout's CLI, interleaved.
//   npm run bench:check-injection [-- --n 10000 --runs 3 --baseline ../other-checkout]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machine, rng } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    baseline: { type: 'string' },
  },
});
const n = Number(values.n);
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};
const parent = mkdtempSync(join(os.tmpdir(), 'cairn-bench-check-'));
const store = join(parent, 'mem');
execFileSync(process.execPath, [join(root, 'bin/cairn.js'), 'init', store], { env, stdio: 'ignore' });
mkdirSync(join(store, 'memories'), { recursive: true });
// Words from a large made-up vocabulary: lib.mjs's 150 real words make every memory a near
// duplicate of the others, and the duplicate rule would then be all that is measured.
const rand = rng(12);
const letters = 'etaoinshrdlcumwfgypbvk';
const vocab = Array.from({ length: 20000 }, () =>
  Array.from({ length: 3 + Math.floor(rand() * 7) }, () => letters[Math.floor(rand() * letters.length)]).join(
    '',
  ),
);
const sentence = (k) =>
  Array.from({ length: k }, () => vocab[Math.floor(rand() * vocab.length)]).join(' ') + '.';
for (let i = 0; i < n; i++)
  writeFileSync(
    join(store, 'memories', `m-${i}.md`),
    `---\nid: m-${i}\ntitle: ${sentence(5)}\nkind: decision\ncreated: 2026-01-01T00:00:00Z\n` +
      `updated: 2026-01-01T00:00:00Z\n---\n${Array.from({ length: 6 }, () => sentence(14)).join(' ')}\n\n` +
      `## Decisions\n- ${sentence(8)}\n- ${sentence(8)}\n`,
  );
execFileSync('git', ['add', '-A'], { cwd: store, env });
execFileSync('git', ['commit', '-qm', 'bench memories'], { cwd: store, env });

/** Median wall time of each variant; runs are interleaved (A B C A B C ...) so that a change in the
 * machine's load during the benchmark falls on every variant alike. */
function times(variants) {
  const ms = variants.map(() => []);
  for (let r = 0; r < Number(values.runs); r++)
    variants.forEach(({ bin, extraEnv }, k) => {
      const t0 = performance.now();
      try {
        execFileSync(process.execPath, [bin, 'check', '--store', store], {
          env: { ...env, ...extraEnv },
          stdio: 'ignore',
        });
      } catch {
        // exit 1 = findings with errors; timing still counts
      }
      ms[k].push(performance.now() - t0);
    });
  return ms.map((m) => m.sort((a, b) => a - b)[m.length >> 1]);
}

console.log(`cairn check on ${n} memories (${machine()}), median of ${values.runs} interleaved runs:`);
const variants = [
  { bin: join(root, 'bin/cairn.js'), extraEnv: {} },
  { bin: join(root, 'bin/cairn.js'), extraEnv: { CAIRN_INJECTION_MODEL: join(parent, 'none.bin') } },
];
if (values.baseline) variants.push({ bin: join(values.baseline, 'bin/cairn.js'), extraEnv: {} });
const [withModel, rulesOnly, base] = times(variants);
console.log(`  rules + model      ${(withModel / 1000).toFixed(2)} s`);
console.log(
  `  rules only         ${(rulesOnly / 1000).toFixed(2)} s   (model adds ${((withModel - rulesOnly) / 1000).toFixed(2)} s)`,
);
if (values.baseline)
  console.log(
    `  baseline checkout  ${(base / 1000).toFixed(2)} s   (this checkout takes ${((withModel - base) / 1000).toFixed(2)} s more)`,
  );

// The same scan in this process, in CPU time (wall time above depends on the machine's load).
const { scanText } = await import('../dist/core/scan/index.js');
const { injectionDetector } = await import('../dist/store/injection-model.js');
const detector = injectionDetector();
const texts = readdirSync(join(store, 'memories')).map((f) =>
  readFileSync(join(store, 'memories', f), 'utf8'),
);
const cpu = (opts) => {
  const t0 = process.cpuUsage();
  for (const t of texts) scanText(t, opts);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1e6;
};
cpu({ detector }); // warm up
const scanRules = Math.min(cpu({}), cpu({}));
const scanBoth = Math.min(cpu({ detector }), cpu({ detector }));
console.log(
  `  scan of ${texts.length} files in-process, CPU time: rules ${scanRules.toFixed(2)} s, rules + model ${scanBoth.toFixed(2)} s (model adds ${(scanBoth - scanRules).toFixed(2)} s, ${(((scanBoth - scanRules) / texts.length) * 1e6).toFixed(0)} µs a memory)`,
);
const { findInjectionPassages } = await import('../dist/core/scan/injection-model.js');
if (detector) {
  const score = () => {
    const t0 = process.cpuUsage();
    for (const t of texts) findInjectionPassages(detector.model, t, detector.threshold);
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1e6;
  };
  score(); // warm up
  const alone = Math.min(score(), score(), score());
  console.log(
    `  scoring alone (findInjectionPassages): ${((alone / texts.length) * 1e6).toFixed(0)} µs a memory`,
  );
}
rmSync(parent, { recursive: true, force: true });
