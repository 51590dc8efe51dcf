// Loads the CommonJS bundle (dist/bundle/*.cjs, scripts/bundle.mjs) with a V8 code cache: each file
// is compiled once, its compiled code (the functions the run needed, too) written at exit under
// ~/.cache/cairn/code/<build id>/, and later runs start from it instead of parsing and compiling
// again. That was about 40 of a warm `cairn search`'s 250 ms of CPU. Node 20 has no compile cache
// of its own (module.enableCompileCache is Node 22), so this is done here, with vm.Script's
// cachedData, for the bundle's files only.
//
// Only a cache this user alone can write is read: cached code is run. V8 rejects a cache made from
// other source text or with other V8 flags (the file is then written again), and the build id names
// the folder, so a rebuilt bundle never meets an older build's cache. Any problem (no home folder,
// read-only disk, CAIRN_CODE_CACHE=0) just means no cache: the bundle loads as plain CommonJS.
//
// CommonJS itself, so that a child process's launcher (bundle-child.cjs) loads it synchronously.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const { createRequire } = Module;
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');
const { makeDirSync } = require('./make-dir.cjs');

/**
 * A file that may call import() (the embedder loads transformers.js so) is compiled by Node as
 * usual: import() from a vm.Script needs an API Node 20 still calls experimental. Comments that
 * mention `import(` only cost that file its cache.
 */
const DYNAMIC_IMPORT = /(?<!typeof |[{.\w])import\(/;
/** Another build's folder unused this long is removed when a new build makes its own. */
const STALE_MS = 7 * 24 * 3600 * 1000;

/** A folder that is ours alone: a real folder, owned by this user, writable by nobody else. */
function private_(dir) {
  const st = fs.lstatSync(dir);
  const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
  return st.isDirectory() && mine && (st.mode & 0o022) === 0;
}

/** This build's cache folder, created 0700; null when there is no id or no folder to trust. */
function cacheFolder(bundleDir) {
  if (process.env.CAIRN_CODE_CACHE === '0') return null;
  try {
    const id = fs.readFileSync(path.join(bundleDir, 'build-id'), 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(id)) return null;
    const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    const top = path.join(base, 'cairn');
    const builds = path.join(top, 'code');
    const dir = path.join(builds, id.slice(0, 32));
    const created = makeDirSync(dir, 0o700);
    const st = fs.lstatSync(base);
    const baseSafe =
      typeof process.getuid !== 'function' || st.uid === process.getuid() || (st.mode & 0o022) === 0;
    if (!baseSafe || ![top, builds, dir].every(private_)) return null;
    if (created) removeStale(builds, dir);
    return dir;
  } catch {
    return null;
  }
}

function removeStale(builds, current) {
  for (const name of fs.readdirSync(builds)) {
    const dir = path.join(builds, name);
    try {
      if (dir !== current && Date.now() - fs.statSync(dir).mtimeMs > STALE_MS)
        fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // another process removed it, or it is not ours to remove: leave it
    }
  }
}

/**
 * Requires `entry` (a file of the bundle) with the code cache. `mode` names the V8 flags the run
 * starts with (`cairn search` turns the optimizing compiler off first), so caches made under other
 * flags are kept apart instead of rejecting each other.
 */
function requireBundle(entry, mode) {
  const bundleDir = path.dirname(entry);
  const folder = cacheFolder(bundleDir);
  if (!folder) return require(entry);
  const fresh = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (path.dirname(filename) !== bundleDir || DYNAMIC_IMPORT.test(content))
      return compile.call(this, content, filename);
    const file = path.join(folder, `${path.basename(filename)}.${mode}.v8`);
    let cachedData;
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) fresh.push({ script, file });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, bundleDir);
  };
  process.once('exit', () => {
    for (const { script, file } of fresh) {
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
        fs.renameSync(tmp, file);
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    }
  });
  return require(entry);
}

module.exports = { requireBundle };
