// The per-user key that seals caches under .cairn/ (server/src/store/state-key.ts) and the sealed
// files themselves (store/cairn-dir.ts): many processes starting at once agree on one key, made
// 0600 outside every store; a sealed file is believed only in the store and under the name it was
// sealed for; without a key nothing is sealed or believed, and nothing fails.
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openCairnDir } from '../../server/src/store/cairn-dir.js';
import { removeDir, REPO_ROOT, tempDir } from '../helpers/store.js';

const run = promisify(execFile);
const parent = tempDir();
afterAll(() => removeDir(parent));

/** The key as a fresh process reads (or makes) it under XDG_STATE_HOME=`state`, in hex ('' for none). */
async function keyOf(state: string): Promise<string> {
  const module = pathToFileURL(path.join(REPO_ROOT, 'dist/store/state-key.js')).href;
  const script = `import(${JSON.stringify(module)}).then((m) => process.stdout.write(m.derivedStateKey()?.toString('hex') ?? ''))`;
  const { stdout } = await run(process.execPath, ['-e', script], {
    env: { ...process.env, XDG_STATE_HOME: state },
  });
  return stdout;
}

describe('the key that seals derived state', () => {
  it('is one key for processes that start at once, 0600 in a 0700 folder of the state home', async () => {
    const state = path.join(parent, 'state-race');
    const keys = await Promise.all(Array.from({ length: 8 }, () => keyOf(state)));
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    const file = path.join(state, 'cairn', 'key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readFileSync(file).toString('hex')).toBe(keys[0]);
    expect(await keyOf(state)).toBe(keys[0]);
  });

  it('replaces a damaged key, and is none where the state home cannot be written', async () => {
    const damaged = path.join(parent, 'state-damaged');
    mkdirSync(path.join(damaged, 'cairn'), { recursive: true });
    writeFileSync(path.join(damaged, 'cairn', 'key'), 'short');
    expect(await keyOf(damaged)).toMatch(/^[0-9a-f]{64}$/);

    const blocked = path.join(parent, 'state-blocked');
    writeFileSync(blocked, 'a file where the folder would be');
    expect(await keyOf(blocked)).toBe('');
  });
});

describe('sealed files under .cairn/', () => {
  const store = (name: string) => {
    const dir = path.join(parent, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it('are read back only in the store and under the name they were sealed for', async () => {
    const a = await openCairnDir(store('store-a'), null);
    const b = await openCairnDir(store('store-b'), null);
    expect(a.writeSealed('cache/x.txt', 'verdicts\n')).toBe(true);
    expect(a.readSealed('cache/x.txt')?.toString()).toBe('verdicts\n');
    // The same bytes under another name, or in another store: not believed.
    copyFileSync(path.join(a.root, '.cairn/cache/x.txt'), path.join(a.root, '.cairn/cache/y.txt'));
    expect(a.readSealed('cache/y.txt')).toBeNull();
    mkdirSync(path.join(b.root, '.cairn/cache'), { recursive: true });
    copyFileSync(path.join(a.root, '.cairn/cache/x.txt'), path.join(b.root, '.cairn/cache/x.txt'));
    expect(b.readSealed('cache/x.txt')).toBeNull();
    // An edit that keeps the seal line, and a file without one: not believed.
    const file = path.join(a.root, '.cairn/cache/x.txt');
    writeFileSync(file, readFileSync(file, 'utf8').replace('verdicts', 'Verdicts'));
    expect(a.readSealed('cache/x.txt')).toBeNull();
    writeFileSync(file, 'verdicts\n');
    expect(a.readSealed('cache/x.txt')).toBeNull();
  });

  it('are neither written nor believed without a key, and nothing fails', async () => {
    const dir = store('store-keyless');
    const blocked = path.join(parent, 'state-unusable');
    writeFileSync(blocked, 'a file where the folder would be');
    const module = pathToFileURL(path.join(REPO_ROOT, 'dist/store/cairn-dir.js')).href;
    const script =
      `import(${JSON.stringify(module)}).then(async (m) => { const d = await m.openCairnDir(${JSON.stringify(dir)}, null);` +
      `process.stdout.write(JSON.stringify([d.writeSealed('cache/x.txt', 'v'), d.readSealed('cache/x.txt')]))})`;
    const { stdout, stderr } = await run(process.execPath, ['-e', script], {
      env: { ...process.env, XDG_STATE_HOME: blocked },
    });
    expect(JSON.parse(stdout)).toEqual([false, null]);
    // Degraded, and said so once.
    expect(stderr.match(/no key to seal caches with/g)).toHaveLength(1);
  });

  it('a writer killed mid-write leaves no temporary file for good: the next write of that file removes it', async () => {
    // A language server killed while it writes its startup cache (megabytes) left
    // workspace.v8.<pid>.<random>.tmp in .cairn/cache, one more with every kill, never removed.
    const dir = store('store-killed-writer');
    const module = pathToFileURL(path.join(REPO_ROOT, 'dist/store/cairn-dir.js')).href;
    const script =
      `import(${JSON.stringify(module)}).then(async (m) => { const d = await m.openCairnDir(${JSON.stringify(dir)}, null);` +
      `await d.writeParts('cache/big.v8', (async function* () { yield Buffer.alloc(1 << 16, 1); process.stdout.write('writing\\n'); await new Promise(() => setInterval(() => {}, 1000)); })(), { sealed: true }); })`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
    const cache = path.join(dir, '.cairn/cache');
    const temps = () => readdirSync(cache).filter((n) => n.endsWith('.tmp'));
    expect(temps()).toHaveLength(1);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('close', resolve));
    // Another file's temporary file, and one of a live process (this one), are not this write's to remove.
    writeFileSync(path.join(cache, `other.v8.${child.pid}.abc.tmp`), 'x');
    writeFileSync(path.join(cache, `big.v8.${process.pid}.live.tmp`), 'x');
    const d = await openCairnDir(dir, null);
    expect(d.writeSealed('cache/big.v8', 'fresh')).toBe(true);
    expect(d.readSealed('cache/big.v8')?.toString()).toBe('fresh');
    expect(temps().sort()).toEqual([`big.v8.${process.pid}.live.tmp`, `other.v8.${child.pid}.abc.tmp`]);
  });
});
