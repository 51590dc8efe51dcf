// `cairn search`'s way to the resident search (server/src/resident-search.ts): a process that keeps
// the store's index open and answers over a unix socket. This file loads no Cairn code, only Node's
// own modules, so a search it answers costs a Node start and one message. When nothing answers
// (none started yet, it exited, the store's settings changed) the search runs in this process as
// before, and a resident is started for the next one. CAIRN_RESIDENT=0 turns all of this off;
// CAIRN_RESIDENT=require makes a search that no resident answered fail (tests, benchmarks).
// Each of node:child_process, node:crypto and node:os costs ~4-6 ms to load: not here. CommonJS
// (bin/package.json), as bin/cairn.js: required, it costs a fraction of an ES module's import.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { makeDirSync } = require('./make-dir.cjs');

/** Environment that can change what a search answers: a resident serves only callers that agree. */
const SAME_ENV = /^(CAIRN_|GIT_)|^(HOME|PATH|TZ|XDG_CACHE_HOME|XDG_CONFIG_HOME|XDG_STATE_HOME|LANG|LC_ALL)$/;

/** How long a search waits for the resident's answer before it searches on its own. */
const RESIDENT_WAIT_MS = 10_000;

/** Answers that mean another resident is meant for this search: starting one here would not help. */
const DECLINED = new Set(['another store', 'another key']);

/** The store `cairn search` will open (main.ts's rule: --store, CAIRN_STORE, upward), or null. */
function storeOf(argv, env, cwd) {
  let explicit = env.CAIRN_STORE;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === '--store') explicit = argv[i + 1];
    else if (argv[i].startsWith('--store=')) explicit = argv[i].slice('--store='.length);
  }
  if (explicit) {
    const dir = path.resolve(cwd, explicit);
    return fs.existsSync(path.join(dir, 'cairn.yaml')) ? dir : null;
  }
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'cairn.yaml'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** A folder only this user can reach, made if missing; null when it cannot be trusted. */
function privateFolder(env) {
  const home = env.HOME;
  const base = env.XDG_RUNTIME_DIR || env.XDG_CACHE_HOME || (home && path.join(home, '.cache'));
  if (!base || !path.isAbsolute(base)) return null;
  const dir = path.join(base, 'cairn', 'resident');
  try {
    // A base someone else can write (unless sticky, as /tmp is) or owns could have ours swapped
    // for theirs: not used.
    const top = fs.lstatSync(base);
    const owner = top.uid === process.getuid() || top.uid === 0;
    const shut = (top.mode & 0o022) === 0 || (top.mode & 0o1000) !== 0;
    if (!top.isDirectory() || !owner || !shut) return null;
    makeDirSync(dir, 0o700);
    const mine = (p, mask) => {
      const st = fs.lstatSync(p);
      return st.isDirectory() && st.uid === process.getuid() && (st.mode & mask) === 0;
    };
    // No one else may write on the way to it, nor look inside it.
    return mine(path.dirname(dir), 0o022) && mine(dir, 0o077) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * Where the resident for this search listens: one per store, build and environment, in a private
 * folder. Null when there is none to use (not built as a bundle, no store, no private folder).
 */
function residentFor(argv, env, cwd, bundleDir) {
  if (env.CAIRN_RESIDENT === '0' || typeof process.getuid !== 'function') return null;
  if (argv.some((a) => a === '--help' || a === '-h')) return null;
  let build;
  try {
    build = fs.readFileSync(path.join(bundleDir, 'build-id'), 'utf8').trim();
  } catch {
    return null;
  }
  const store = storeOf(argv, env, cwd);
  const folder = store && privateFolder(env);
  if (!folder) return null;
  const same = Object.keys(env)
    .filter((k) => SAME_ENV.test(k) && !k.startsWith('CAIRN_RESIDENT'))
    .sort()
    .map((k) => [k, env[k]]);
  // The resident checks the whole key; the socket's name only needs to tell residents apart.
  const key = JSON.stringify([fs.realpathSync(store), build, same]);
  return { store, key, socket: path.join(folder, `${fnv64(key)}.sock`) };
}

/** FNV-1a, 64 bits as two 32-bit lanes: a name, not a secret. */
function fnv64(text) {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (a >>> 24), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * Asks the resident: its answer written out and its exit code, or null when none answered (then
 * `startable` says whether starting one could help).
 */
function ask(resident, argv, cwd) {
  return new Promise((resolve) => {
    const chunks = [];
    let settled = false;
    const done = (value) => {
      if (!settled) resolve(value);
      settled = true;
    };
    const asked = identityOf(resident.socket);
    const socket = net.connect(resident.socket);
    socket.on('error', (err) => done({ code: null, startable: err.code !== 'EACCES', why: err.code }));
    // A resident that does not answer (stuck, or a socket that only accepts) must not hold the
    // person's search: after this long without a byte, the search runs on its own. Nor the next
    // searches: its socket is removed (when it is still the one asked), a fresh resident is started
    // after this search, and the stuck one ends by itself once it sees its socket gone.
    const wait = Number(process.env.CAIRN_RESIDENT_WAIT_MS) || RESIDENT_WAIT_MS;
    socket.setTimeout(wait, () => {
      if (chunks.length) return;
      socket.destroy();
      const replaced = asked !== null && identityOf(resident.socket) === asked && unlink(resident.socket);
      done({ code: null, startable: replaced, why: `no answer within ${wait} ms`, replaced });
    });
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => {
      let reply;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        reply = JSON.parse(text);
      } catch {
        return done({ code: null, startable: text === '', why: 'no answer' }); // nothing: it ended mid-way
      }
      if (typeof reply.code !== 'number')
        return done({ code: null, startable: !DECLINED.has(reply.fallback), why: reply.fallback });
      if (!Array.isArray(reply.writes)) return done({ code: null, startable: false, why: 'no answer' });
      // In the order the command wrote them: a terminal shows what a search on its own shows.
      for (const [fd, text] of reply.writes) (fd === 2 ? process.stderr : process.stdout).write(text);
      done({ code: reply.code });
    });
    socket.write(JSON.stringify({ key: resident.key, argv, cwd }) + '\n');
  });
}

/** The identity of a file (device and inode), or null when there is none. */
function identityOf(file) {
  try {
    const st = fs.lstatSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

function unlink(file) {
  try {
    fs.unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a resident for the next search, detached: it outlives this process and holds none of its
 * pipes. Its key goes in its environment, which only this user can read (not its command line).
 */
function start(resident, launcher) {
  try {
    const { spawn } = require('node:child_process');
    spawn(process.execPath, [launcher, '--resident-search', resident.store, resident.socket], {
      cwd: resident.store,
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, CAIRN_RESIDENT_KEY: resident.key },
    }).unref();
  } catch {
    // Nothing lost: the next search runs on its own again.
  }
}

module.exports = { residentFor, ask, start };
