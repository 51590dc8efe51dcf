// The bundle keeps the markdown parser (remark) in dist/bundle/markdown.cjs, required on first use
// (scripts/bundle.mjs): a file that needs it is read exactly as by the unbundled code, a search that
// needs none never loads it, and a missing or damaged file is a finding that names it.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, GIT_ENV, REPO_ROOT, removeDir, tempDir } from '../helpers/store.js';
import { makeStore, memoryText } from '../lsp/lsp-helper.js';

const run = promisify(execFile);

/** A fence sends the file to remark: [[ghost-one]] is code, [[ghost-two]] a broken reference. */
const FENCED = memoryText(
  'fenced-notes',
  '## Context\n\nSee [[ghost-two]].\n\n```\n[[ghost-one]]\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |',
);
const PLAIN = memoryText('plain-notes', '## Context\n\nThe deploy cache is retried twice.');

/** A copy of the built package (launcher, bundle, package.json, models) whose bundle a test may damage. */
function packageCopy(): string {
  const dir = tempDir('cairn-bundle-');
  mkdirSync(path.join(dir, 'dist'));
  cpSync(path.join(REPO_ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
  cpSync(path.join(REPO_ROOT, 'dist', 'bundle'), path.join(dir, 'dist', 'bundle'), { recursive: true });
  cpSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
  symlinkSync(path.join(REPO_ROOT, 'models'), path.join(dir, 'models'));
  return dir;
}

async function cairnAt(
  pkg: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, ...GIT_ENV, CAIRN_AUTHOR_NAME: 'T', CAIRN_AUTHOR_EMAIL: 't@example.com' };
  try {
    const r = await run(process.execPath, [path.join(pkg, 'bin', 'cairn.js'), ...args], { env });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** The unbundled tsc output (dist/main.js), which imports remark directly. */
async function unbundled(args: string[]): Promise<string> {
  const main = pathToFileURL(path.join(REPO_ROOT, 'dist', 'main.js')).href;
  const code = `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(process.argv.slice(1));`;
  const env = { ...process.env, ...GIT_ENV };
  const r = await run(process.execPath, ['--input-type=module', '-e', code, '--', ...args], { env }).catch(
    (e: { stdout: string }) => e,
  );
  return r.stdout;
}

const findings = (stdout: string) =>
  (JSON.parse(stdout) as { findings: { path: string; code: string; message: string }[] }).findings;

describe('the markdown parser of the bundle', () => {
  let root: string;
  let pkg: string;
  beforeAll(() => {
    root = makeStore({ 'memories/fenced-notes.md': FENCED, 'memories/plain-notes.md': PLAIN });
    pkg = packageCopy();
  });
  afterAll(() => {
    removeDir(root);
    removeDir(pkg);
  });

  it('reads a file that needs remark exactly as the unbundled code does', async () => {
    const bundled = await cairn(['check', '--store', root, '--format', 'json']);
    expect(findings(bundled.stdout)).toEqual(
      findings(await unbundled(['check', '--store', root, '--format', 'json'])),
    );
    const refs = findings(bundled.stdout)
      .map((f) => f.message)
      .join('\n');
    expect(refs).toContain('ghost-two');
    expect(refs).not.toContain('ghost-one'); // inside the fence: remark ran
  });

  it('is not needed by a search over a built index: the same answer without it', async () => {
    expect((await cairnAt(pkg, ['index', '--store', root])).code).toBe(0);
    const before = await cairnAt(pkg, ['search', '--store', root, '--json', 'deploy cache']);
    rmSync(path.join(pkg, 'dist', 'bundle', 'markdown.cjs'));
    const after = await cairnAt(pkg, ['search', '--store', root, '--json', 'deploy cache']);
    expect(after.code).toBe(0);
    expect(after.stdout).toBe(before.stdout);
    expect(JSON.parse(after.stdout).entries[0].topicId).toBe('plain-notes');
  });

  it('missing or damaged: the file that needed it gets a finding naming it, and nothing else breaks', async () => {
    const file = path.join(pkg, 'dist', 'bundle', 'markdown.cjs');
    for (const damage of ['missing', 'damaged']) {
      if (damage === 'missing') rmSync(file, { force: true });
      else writeFileSync(file, 'module.exports = {'); // cut short
      const r = await cairnAt(pkg, ['check', '--store', root, '--format', 'json']);
      const found = findings(r.stdout).filter((f) => f.code === 'parse-internal');
      expect(found.map((f) => f.path)).toEqual(['memories/fenced-notes.md']);
      expect(found[0].message).toContain(`the markdown parser ${file} cannot be loaded`);
      expect(found[0].message).toContain('reinstall Cairn');
    }
  });
});
