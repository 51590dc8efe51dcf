// The language server's V8 helper threads at the lowest priority (Linux). V8 runs its concurrent
// work (marking, sweeping, compiling) for every isolate of the process on a few helper threads,
// created at start at the server's own priority. After a build the search is answered by a worker
// thread of the server (ops/search-process.ts), whose heap is marked about every 20 searches: on
// 2 cores two helpers then held both for 2-5 ms, and the server's thread, woken by an edit, waited
// for a core (perf sched, bench/edit-driver.mjs --cold --rounds at 10,000 memories). Lowered, they
// yield to it at once, and still run whenever a core is free: edit -> diagnostics p95 2.6-2.9 ms
// became 1.7-1.8 ms with SCHED_IDLE, 1.9-2.0 ms with nice 19 alone.
//
// Called before anything asynchronous: every thread but this one is then one of V8's (libuv's
// thread pool, which reads files for the server, starts later and keeps the server's priority).
// Best effort: nothing here may stop the server from starting.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

/** The lowest nice value there is. */
const LOWEST = 19;

function lowerHelperThreads() {
  if (process.platform !== 'linux') return;
  let helpers;
  try {
    helpers = fs
      .readdirSync('/proc/self/task')
      .map(Number)
      .filter((tid) => tid !== process.pid);
  } catch {
    return;
  }
  for (const tid of helpers) {
    try {
      os.setPriority(tid, LOWEST);
    } catch {
      // unchanged priority
    }
  }
  if (!helpers.length) return;
  // SCHED_IDLE, stronger than nice 19: a helper never takes a core the server's thread is woken
  // for. Node has no call for it; util-linux's chrt (in Debian's essential set) sets it. Not
  // waited for, and nothing is said when it is missing: nice 19 stays.
  try {
    const chrt = spawn('sh', ['-c', 'for t do chrt -i -p 0 "$t"; done', 'sh', ...helpers.map(String)], {
      stdio: 'ignore',
    });
    chrt.on('error', () => {});
    chrt.unref();
  } catch {
    // nice 19 stays
  }
}

module.exports = { lowerHelperThreads };
