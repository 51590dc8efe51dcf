// Micro-benchmark of the git adapter's commit path (run `npx tsc -p tsconfig.json` first):
//   node bench/git-commit.mjs [--files 10000] [--commits 200]
// Builds a repository of N memory files in one flat memories/ folder (with git fast-import), then
// times single-file commits through GitRepo.commit on the checked-out main branch and on a
// candidate branch, isomorphic-git's index update (`git.add`) alone for comparison, and the same
// commits through the git CLI (`git add` + `git commit`, two processes each).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as git from 'isomorphic-git';
import { GitRepo } from '../dist/store/git.js';
import { GitIndex } from '../dist/store/git/index-file.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const FILES = arg('files', 10_000);
const COMMITS = arg('commits', 200);
const AUTHOR = { name: 'Bench', email: 'bench@example.com' };
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
const gitCli = (cwd, args, input) => execFileSync('git', args, { cwd, env, input, maxBuffer: 1 << 30 });

const WORDS =
  'memory cache redis decision rationale agent session plan index search vector token commit branch review trust'.split(
    ' ',
  );
function memoryText(i) {
  const words = [];
  for (let w = 0; w < 100 + (i % 300); w++)
    words.push(WORDS[(i * 7 + w * 13) % WORDS.length] + (w % 11 === 0 ? i : ''));
  return `---\nid: mem-${i}\ntitle: Memory ${i}\nkind: fact\n---\n\n${words.join(' ')}\n`;
}

function buildRepo(dir) {
  gitCli(dir, ['init', '-q', '-b', 'main']);
  const parts = [];
  for (let i = 0; i < FILES; i++) {
    const body = Buffer.from(memoryText(i));
    parts.push(Buffer.from(`blob\nmark :${i + 1}\ndata ${body.length}\n`), body, Buffer.from('\n'));
  }
  const msg = 'import memories\n';
  parts.push(
    Buffer.from(
      `commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata ${msg.length}\n${msg}`,
    ),
  );
  for (let i = 0; i < FILES; i++)
    parts.push(Buffer.from(`M 100644 :${i + 1} memories/mem-${String(i).padStart(5, '0')}.md\n`));
  parts.push(Buffer.from('\n'));
  gitCli(dir, ['fast-import', '--quiet'], Buffer.concat(parts));
  gitCli(dir, ['reset', '-q', '--hard', 'main']);
}

function stats(label, ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const total = ms.reduce((a, b) => a + b, 0);
  console.log(
    `${label.padEnd(44)} p50 ${q(0.5).toFixed(1).padStart(6)} ms  p95 ${q(0.95).toFixed(1).padStart(6)} ms  ` +
      `${((1000 * ms.length) / total).toFixed(1).padStart(6)} commits/s`,
  );
}

async function time(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-git-'));
try {
  let t = performance.now();
  buildRepo(dir);
  console.log(
    `repo with ${FILES} files in memories/ built in ${((performance.now() - t) / 1000).toFixed(1)} s (${dir})`,
  );

  const repo = await GitRepo.open(dir);
  const ours = [];
  for (let i = 0; i < COMMITS; i++) {
    const id = `new-${i}`;
    ours.push(
      await time(() =>
        repo.commit({
          branch: 'main',
          changes: [{ path: `memories/${id}.md`, content: memoryText(FILES + i) }],
          message: `memory(add): ${id}\n\nMemory-Id: ${id}\nMemory-Action: add`,
          author: AUTHOR,
        }),
      ),
    );
  }
  stats('GitRepo.commit on main (work tree + index)', ours);

  const base = await repo.resolve('main');
  const cand = [];
  for (let i = 0; i < COMMITS; i++) {
    const id = `cand-${i}`;
    cand.push(
      await time(() =>
        repo.commit({
          branch: `candidate/${id}`,
          startPoint: base,
          createOnly: true,
          changes: [{ path: `memories/${id}.md`, content: memoryText(2 * FILES + i) }],
          message: `memory(add): ${id}\n\nMemory-Id: ${id}\nMemory-Action: add`,
          author: AUTHOR,
        }),
      ),
    );
  }
  stats('GitRepo.commit on candidate/<id> (no work tree)', cand);

  const status = gitCli(dir, ['status', '--porcelain']).toString();
  console.log(
    `git status --porcelain after our commits: ${status === '' ? 'clean' : status.split('\n').length + ' lines'}`,
  );

  // Our index update alone (read + splice one entry + hash + write), as done inside commit().
  const ownIndex = [];
  for (let i = 0; i < 50; i++) {
    const rel = `memories/new-${i}.md`;
    const st = fs.statSync(path.join(dir, rel), { bigint: true });
    ownIndex.push(
      await time(async () => {
        const index = await GitIndex.read(path.join(dir, '.git/index'));
        if (!index) throw new Error('no index');
        const oid = index.lookup(rel)[0].oid;
        const bytes = index.serializeWith([{ path: rel, oid, mode: '100644', stat: st }]);
        await fs.promises.writeFile(path.join(dir, '.git/index.bench'), bytes);
      }),
    );
  }
  stats('own index update (index update only)', ownIndex);

  // For comparison only: isomorphic-git's index update for one new file (rewrites the whole index).
  const isoAdd = [];
  const isoCache = {};
  for (let i = 0; i < Math.min(COMMITS, 50); i++) {
    const rel = `memories/iso-${i}.md`;
    fs.writeFileSync(path.join(dir, rel), memoryText(3 * FILES + i));
    isoAdd.push(await time(() => git.add({ fs, dir, filepath: rel, cache: isoCache })));
  }
  stats('isomorphic-git add (index update only)', isoAdd);
  gitCli(dir, ['reset', '-q', '--hard', 'main']);
  gitCli(dir, ['clean', '-qfd']);

  const cli = [];
  for (let i = 0; i < COMMITS; i++) {
    const id = `cli-${i}`;
    cli.push(
      await time(async () => {
        fs.writeFileSync(path.join(dir, `memories/${id}.md`), memoryText(4 * FILES + i));
        gitCli(dir, ['add', `memories/${id}.md`]);
        gitCli(dir, ['commit', '-q', '-m', `memory(add): ${id}\n\nMemory-Id: ${id}\nMemory-Action: add`]);
      }),
    );
  }
  stats('git CLI add + commit', cli);
  t = performance.now();
  gitCli(dir, ['fsck', '--strict', '--no-dangling']);
  console.log(`git fsck --strict: clean (${((performance.now() - t) / 1000).toFixed(1)} s)`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
