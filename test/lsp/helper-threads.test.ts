// bin/lower-helpers.cjs: `cairn lsp`'s V8 helper threads run at the lowest priority (nice 19, and
// SCHED_IDLE where chrt is), so that V8's concurrent marking of the search thread's heap does not
// hold both cores while an edit waits. The server's own thread keeps its priority, and so does
// libuv's thread pool, which starts later and reads files for it. Linux (/proc).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { killServers, spawnServer } from './stdio-server.js';

afterEach(killServers);

const SCHED_IDLE = 5;

/** Each thread of `pid`: its nice value and scheduling policy (/proc/PID/task/TID/stat). */
function threads(pid: number): { tid: number; nice: number; policy: number }[] {
  const out: { tid: number; nice: number; policy: number }[] = [];
  for (const name of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${name}/stat`, 'utf8');
      // Fields after "(comm)": state is field 3, nice field 19, policy field 41.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ tid: Number(name), nice: Number(fields[16]), policy: Number(fields[38]) });
    } catch {
      // ended while listed
    }
  }
  return out;
}

const hasChrt = spawnSync('sh', ['-c', 'command -v chrt'], { encoding: 'utf8' }).status === 0;

describe.runIf(process.platform === 'linux')("the language server's V8 helper threads", () => {
  it('run at the lowest priority, the thread that answers the editor at its own', async () => {
    const { child, conn } = spawnServer();
    conn.listen();
    await conn.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    const pid = child.pid!;
    // chrt runs beside the server's start: wait for it (a few hundred ms at most).
    const deadline = Date.now() + 10_000;
    let seen = threads(pid);
    const lowered = () => seen.filter((t) => t.tid !== pid && t.nice === 19);
    const idle = () => lowered().filter((t) => t.policy === SCHED_IDLE);
    while (Date.now() < deadline && (lowered().length < 4 || (hasChrt && idle().length < lowered().length))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = threads(pid);
    }
    const main = seen.find((t) => t.tid === pid)!;
    expect(main.nice).toBe(0);
    expect(main.policy).not.toBe(SCHED_IDLE);
    // V8 starts one helper per core, four at least (node's --v8-pool-size default).
    expect(lowered().length).toBeGreaterThanOrEqual(4);
    if (hasChrt) expect(idle().length).toBe(lowered().length);
    // Threads started later (libuv's pool, the search thread) are not lowered to the last step.
    expect(seen.filter((t) => t.tid !== pid && t.nice !== 19).every((t) => t.policy !== SCHED_IDLE)).toBe(
      true,
    );
  });
});
