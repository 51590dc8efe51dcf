// Ordinary bad input is the caller's mistake, never "internal error (please report it)" with a stack
// trace (exit 70): a missing file or a folder given to import, a --out in no folder, a port in use,
// init on a file or under one, a path under /proc (Node's recursive mkdir looped there forever),
// and --json and unknown names for help. Each case leaves the store and the files as they were.
import {
  cpSync,
  existsSync,
  readFileSync,
  renameSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportError, type CliIO } from '../../server/src/cli/io.js';
import { COMMANDS } from '../../server/src/cli/registry.js';
import { cairn, cliStores, expectClear, git, TEMPLATE_DIR } from '../helpers/store.js';

const stores = cliStores();

/** What a command could have changed in a store: its commits, its files, its .cairn folder. */
function snapshot(dir: string): string {
  return [
    git(dir, 'rev-parse', 'HEAD'),
    git(dir, 'status', '--porcelain', '--ignored', '--untracked-files=all'),
  ].join('\n');
}

/** Ends a `cairn` that would otherwise hang; -1 is the code of a killed process. */
const MUST_FINISH = { timeout: 30_000 };
const hasProc = existsSync('/proc/self');

describe('bad file arguments are usage errors (exit 2), as import --source says them', () => {
  it('import FILE --format jsonl with no such file', async () => {
    const s = await stores.newStore();
    const before = snapshot(s.dir);
    const r = await s.run('import', path.join(s.parent, 'nonexistent.jsonl'), '--format', 'jsonl');
    expectClear(r, 2, /nonexistent\.jsonl: no such file/);
    expect(snapshot(s.dir)).toBe(before);
  });

  it('import FOLDER --format jsonl', async () => {
    const s = await stores.newStore();
    const before = snapshot(s.dir);
    const r = await s.run('import', s.parent, '--format', 'jsonl');
    expectClear(r, 2, /is a folder/);
    expect(snapshot(s.dir)).toBe(before);
  });

  it('graph --out in a folder that does not exist', async () => {
    const s = await stores.newStore();
    const before = snapshot(s.dir);
    const out = path.join(s.parent, 'nodir', 'x.svg');
    const r = await s.run('graph', '--format', 'svg', '--out', out);
    expectClear(r, 2, /--out .*nodir.*no such folder/);
    expect(existsSync(path.dirname(out))).toBe(false);
    expect(snapshot(s.dir)).toBe(before);
  });
});

describe('serve', () => {
  it('on a port in use names the port and suggests another', async () => {
    const s = await stores.newStore();
    const before = snapshot(s.dir);
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const r = await cairn(['serve', '--port', String(port), '--store', s.dir], MUST_FINISH);
      expectClear(r, 2, new RegExp(`port ${port} .*in use.*--port 0`));
    } finally {
      taken.close();
    }
    expect(existsSync(path.join(s.dir, '.cairn', 'serve.json'))).toBe(false);
    expect(snapshot(s.dir)).toBe(before);
  });
});

describe('init', () => {
  it('on a path that is a file', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'file.svg');
    writeFileSync(file, '<svg/>');
    const r = await cairn(['init', file], MUST_FINISH);
    expectClear(r, 2, /file\.svg is a file, not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('<svg/>');
  });

  it('on a path under a file', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'file.svg');
    writeFileSync(file, '<svg/>');
    const r = await cairn(['init', path.join(file, 'sub')], MUST_FINISH);
    expectClear(r, 2, /cannot create .*file\.svg.sub: .*file\.svg is a file, not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('<svg/>');
  });

  it('DIR and a --store naming another folder: a usage error, neither created', async () => {
    const s = await stores.newStore();
    const [a, b] = [path.join(s.parent, 'init-a'), path.join(s.parent, 'init-b')];
    const r = await cairn(['init', a, '--store', b], MUST_FINISH);
    expectClear(r, 2, /init was given two folders: .*init-a and --store .*init-b/);
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(false);
  });

  it('--store DIR alone, or naming DIR too, creates that store', async () => {
    const s = await stores.newStore();
    const only = path.join(s.parent, 'init-only-store');
    expect((await cairn(['init', '--store', only], MUST_FINISH)).code).toBe(0);
    expect(existsSync(path.join(only, 'cairn.yaml'))).toBe(true);
    const both = path.join(s.parent, 'init-both');
    expect((await cairn(['init', both, '--store', both + '/'], MUST_FINISH)).code).toBe(0);
    expect(existsSync(path.join(both, 'cairn.yaml'))).toBe(true);
  });

  it('a second folder is an argument too many, not dropped', async () => {
    const s = await stores.newStore();
    const [a, b] = [path.join(s.parent, 'init-c'), path.join(s.parent, 'init-d')];
    const r = await cairn(['init', a, b], MUST_FINISH);
    expectClear(r, 2, /too many arguments/);
    expect(existsSync(a)).toBe(false);
  });

  it.skipIf(!hasProc)('under /proc finishes, with a clear error (Node recursive mkdir looped)', async () => {
    const r = await cairn(['init', '/proc/cairn-no-such-folder'], MUST_FINISH);
    expectClear(r, 2, /cannot create the folder \/proc\/cairn-no-such-folder/);
  });
});

describe('any command: errors from the system for a named path map to documented exit codes', () => {
  // model pull stages the download in --models-dir first: the remote (port 9) is never reached.
  const pull = (dir: string) =>
    cairn(['model', 'pull', '--models-dir', dir], {
      ...MUST_FINISH,
      env: { CAIRN_REMOTE_HOST: 'http://127.0.0.1:9' },
    });

  it('a folder under a file (ENOTDIR) is a usage error', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'file');
    writeFileSync(file, 'x');
    const r = await pull(path.join(file, 'models'));
    expectClear(r, 2, /file.models: a part of that path is a file, not a folder/);
  });

  it.skipIf(!hasProc)('a folder under /proc finishes (ENOENT from mkdir)', async () => {
    const r = await pull('/proc/cairn-no-such-folder');
    expectClear(r, 2, /cannot create the folder \/proc\/cairn-no-such-folder/);
  });

  it.skipIf(!hasProc)('the launcher finishes with its code cache under /proc (XDG_CACHE_HOME)', async () => {
    const r = await cairn(['--version'], { ...MUST_FINISH, env: { XDG_CACHE_HOME: '/proc/cairn-x' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('help and import-prompt answer --json; help names an unknown command', () => {
  it('import-prompt --json prints {source, prompt}', async () => {
    const r = await cairn(['import-prompt', '--source', 'chatgpt', '--json']);
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer.source).toBe('chatgpt');
    expect(answer.prompt).toContain('cairn import --source chatgpt');
  });

  it('help --json lists every command with its summary and usage', async () => {
    const r = await cairn(['help', '--json']);
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer.commands.map((c: { name: string }) => c.name)).toEqual(COMMANDS.map((c) => c.name));
    for (const c of answer.commands) {
      expect(c.summary).toEqual(expect.any(String));
      expect(c.usage).toMatch(/^cairn /);
    }
    const one = await cairn(['help', 'init', '--json']);
    expect(JSON.parse(one.stdout)).toMatchObject({ name: 'init', usage: 'cairn init DIR' });
    const flag = await cairn(['init', '--help', '--json']);
    expect(JSON.parse(flag.stdout)).toMatchObject({ name: 'init', usage: 'cairn init DIR' });
  });

  it('help UNKNOWN exits 2 saying so and listing the commands', async () => {
    const r = await cairn(['help', 'foo']);
    expectClear(r, 2, /unknown command "foo".*init, setup, store/);
    expect(r.stdout).toBe('');
    const json = await cairn(['help', 'foo', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, errorCode: 'USAGE' });
  });
});

// Fails before: init killed between copying the template and its first commit left a folder that
// every command sent back to `cairn init`, and init refused as a store already (only rm -rf ended it).
describe('init finishes an init that was cut short, and takes over nothing else', () => {
  /** What a killed init leaves: the template's files and a repository with no commit. */
  const unfinished = (dir: string) => {
    cpSync(TEMPLATE_DIR, dir, { recursive: true });
    renameSync(path.join(dir, 'gitignore'), path.join(dir, '.gitignore'));
    git(path.dirname(dir), 'init', '-q', '-b', 'main', dir);
  };

  it('the template copied, no commit: init makes its first commit there', async () => {
    const s = await stores.newStore();
    const dir = path.join(s.parent, 'cut-short');
    unfinished(dir);
    const r = await cairn(['init', dir], MUST_FINISH);
    expect(r.code, r.stderr).toBe(0);
    expect(git(dir, 'log', '--format=%s')).toBe('store(init): new Cairn store from memory-template\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(path.join(dir, 'gitignore'))).toBe(false);
  });

  it('a file of the template changed, one more file, or a link: refused, nothing changed', async () => {
    const s = await stores.newStore();
    for (const [name, change] of [
      ['edited', (dir: string) => writeFileSync(path.join(dir, 'MEMORY.md'), '# Mine\n')],
      ['added', (dir: string) => writeFileSync(path.join(dir, 'memories', 'mine.md'), 'mine\n')],
      // Found trying it as an attacker: a link ended init with an internal error.
      ['link', (dir: string) => symlinkSync('/etc/passwd', path.join(dir, 'memories', 'mine.md'))],
    ] as const) {
      const dir = path.join(s.parent, name);
      unfinished(dir);
      change(dir);
      const before = git(dir, 'status', '--porcelain', '--untracked-files=all');
      const r = await cairn(['init', dir], MUST_FINISH);
      expectClear(r, 5, /already a Cairn store/);
      expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(before);
      expect(() => git(dir, 'rev-parse', '-q', '--verify', 'HEAD')).toThrow();
    }
  });
});

describe('init still makes the missing folders above DIR', () => {
  it('two levels of them', async () => {
    const s = await stores.newStore();
    const deep = path.join(s.parent, 'a', 'b', 'c');
    const r = await cairn(['init', deep], MUST_FINISH);
    expect(r.code).toBe(0);
    expect(existsSync(path.join(deep, 'cairn.yaml'))).toBe(true);
  });
});

describe('the error boundary (reportError)', () => {
  const io = () => {
    let err = '';
    const sink = (add: (t: string) => void) => ({ write: (t: string) => (add(String(t)), true) });
    return {
      io: {
        stdout: sink(() => undefined),
        stderr: sink((t) => (err += t)),
        stdin: process.stdin,
        env: {},
        cwd: '/',
        stderrIsTTY: false,
      } as unknown as CliIO,
      stderr: () => err,
    };
  };
  const system = (code: string, extra: Record<string, unknown>) =>
    Object.assign(new Error(`${code}: x`), { code, ...extra });

  it('maps the system errors for a named path or port to documented codes', () => {
    const cases: [Error, number][] = [
      [system('ENOENT', { syscall: 'open', path: '/x/y' }), 4],
      [system('ENOENT', { syscall: 'mkdir', path: '/proc/y' }), 2],
      [system('ENOTDIR', { syscall: 'mkdir', path: '/x/y' }), 2],
      [system('EISDIR', { syscall: 'open', path: '/x' }), 2],
      [system('EEXIST', { syscall: 'mkdir', path: '/x' }), 5],
      [system('EACCES', { syscall: 'open', path: '/x' }), 1],
      [system('EADDRINUSE', { syscall: 'listen', address: '127.0.0.1', port: 4 }), 2],
    ];
    for (const [err, code] of cases) {
      const o = io();
      expect(reportError(o.io, err, false)).toBe(code);
      expect(o.stderr()).not.toMatch(/please report|\n\s+at /);
    }
  });

  it('keeps everything else a bug: exit 70, please report it', () => {
    for (const err of [
      new TypeError('x is undefined'),
      system('ENOENT', {}),
      system('EPIPE', { path: '/x' }),
    ]) {
      const o = io();
      expect(reportError(o.io, err, false)).toBe(70);
      expect(o.stderr()).toMatch(/internal error \(please report it\)/);
    }
  });
});

describe('import FILE --format jsonl says what it will not do, and does nothing', () => {
  const payload = JSON.stringify({ topic: 'Dry run', context: 'A dry run must not write this.' });

  it('--dry-run, which only --source has, is a usage error, not a write', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'one.jsonl');
    writeFileSync(file, `${payload}\n`);
    const before = snapshot(s.dir);
    const refs = git(s.dir, 'for-each-ref');
    const r = await s.run('import', file, '--dry-run');
    expectClear(r, 2, /--dry-run/);
    expect(snapshot(s.dir)).toBe(before);
    expect(git(s.dir, 'for-each-ref')).toBe(refs);
  });

  it('a file larger than a command reads at once', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'huge.jsonl');
    writeFileSync(file, '');
    truncateSync(file, 600 * 1024 * 1024); // sparse: no disk used
    const before = snapshot(s.dir);
    const r = await s.run('import', file, '--format', 'jsonl');
    expectClear(r, 2, /huge\.jsonl: \d+ bytes; at most \d+ bytes are read at once/);
    expect(snapshot(s.dir)).toBe(before);
  });
});

describe('stdin larger than a command reads at once', () => {
  // A file over 64 MiB was refused, stdin was read whole: a pipe past V8's longest string ended in
  // an internal error, after holding it all in memory.
  it('is a usage error for learn -, read no further than the bound', { timeout: 120_000 }, async () => {
    const s = await stores.newStore();
    const before = snapshot(s.dir);
    const line = 'User: Remember that the build uses pnpm.\n';
    const r = await cairn(['learn', '-', '--store', s.dir], { input: line.repeat(70 * 25_000) }); // ~70 MB
    expectClear(r, 2, /stdin: more than \d+ bytes/);
    expect(snapshot(s.dir)).toBe(before);
  });
});

describe('a word more than a command takes is refused, never dropped', () => {
  it('forget, undo, feedback, supersede, accept, reject and import with one argument too many change nothing', async () => {
    const s = await stores.newStore();
    await s.store({ topic: 'Redis', context: 'Redis is used for everything in the gateway.' });
    await s.store({ topic: 'Redis sessions', context: 'We use Redis for sessions in the gateway.' });
    await s.store({
      topic: 'Nightly',
      context: 'A nightly finding to review.',
      agentName: 'bot',
      origin: 'background',
    });
    const file = path.join(s.parent, 'one.jsonl');
    writeFileSync(file, `${JSON.stringify({ topic: 'One', context: 'One payload to import.' })}\n`);
    const before = snapshot(s.dir);
    const refs = git(s.dir, 'for-each-ref');
    for (const args of [
      // A title typed without quotes: this forgot `redis`, a memory the person did not mean.
      ['forget', 'redis', 'sessions'],
      ['undo', 'redis', 'sessions'],
      ['feedback', 'redis', 'up', 'sessions'],
      ['supersede', 'redis', 'redis-sessions', 'extra'],
      ['accept', 'nightly', 'extra'],
      // A reason typed without quotes: this rejected with the reason "not".
      ['reject', 'nightly', '--why', 'not', 'useful'],
      ['import', file, file],
      ['import', '--source', 'chatgpt', file, file],
    ]) {
      const r = await s.run(...args);
      expectClear(r, 2, /too many arguments/);
      expect(snapshot(s.dir), args.join(' ')).toBe(before);
      expect(git(s.dir, 'for-each-ref'), args.join(' ')).toBe(refs);
    }
  });
});

// Fails before: JSON.parse refused text that began with a UTF-8 byte order mark (Windows editors
// write one), and the error named a character nobody sees ("Unexpected token '<U+FEFF>'").
describe('a byte order mark at the start of the input is no part of it', () => {
  const BOM = '\uFEFF';

  it('store: a payload on stdin', async () => {
    const s = await stores.newStore();
    const payload = JSON.stringify({ topic: 'Payload saved with a BOM', context: 'Notepad wrote this one.' });
    const r = await cairn(['store', '--store', s.dir, '--json'], { input: BOM + payload });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).metadata.topic_id).toBe('payload-saved-with-a-bom');
  });

  it('import FILE --format jsonl: the first line', async () => {
    const s = await stores.newStore();
    const file = path.join(s.parent, 'bom.jsonl');
    const line = (topic: string) => JSON.stringify({ topic, context: 'Exported by a Windows tool.' });
    writeFileSync(file, `${BOM}${line('First line')}\r\n${line('Second line')}\r\n`);
    const r = await s.run('import', file, '--format', 'jsonl', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).counts).toMatchObject({ candidate: 2, failed: 0 });
  });
});
