// `mkdir -p` that always ends, for the launcher (server/src/store/make-dir.ts says why; keep them
// equal): Node's `mkdirSync(dir, { recursive: true })` loops forever when a parent exists but mkdir
// still answers ENOENT (a path under /proc, a dangling link): `XDG_CACHE_HOME=/proc/x cairn` hung.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** Creates `dir` and its missing parents; returns the first folder created, else undefined. */
function makeDirSync(dir, mode) {
  const abs = path.resolve(dir);
  const existing = (err) => {
    let isDir = false;
    try {
      isDir = fs.statSync(abs).isDirectory();
    } catch {
      // not there after all: the error stands
    }
    if (err.code === 'EEXIST' && isDir) return undefined;
    throw err;
  };
  try {
    fs.mkdirSync(abs, { mode });
    return abs;
  } catch (err) {
    if (err.code === 'EEXIST') return existing(err);
    const parent = path.dirname(abs);
    if (err.code !== 'ENOENT' || parent === abs) throw err;
    const first = makeDirSync(parent, mode);
    try {
      fs.mkdirSync(abs, { mode });
      return first ?? abs;
    } catch (again) {
      // The parent exists now: a second ENOENT is final, never retried.
      if (again.code === 'EEXIST') return existing(again);
      throw again;
    }
  }
}

module.exports = { makeDirSync };
