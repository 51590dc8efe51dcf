// How the server learns that its editor is gone, and what it does then. vscode-languageserver's own
// watchdog (its node entry) calls process.exit within 3 s of the editor's process dying, and at an
// `exit` notification, whatever the server is doing: a store in the middle of its commit was lost,
// even while the server's own handler for the end of stdin was waiting for it. This one hands both
// to the server, which lets the requests under way finish first (server.ts, `leave`).
import type { InitializeParams, WatchDog } from 'vscode-languageserver';

/** How often the editor's process is looked for (as vscode-languageserver does). */
const PARENT_POLL_MS = 3000;

export type Leaving = 'exit' | 'editor-gone';

/** A watchdog that calls `leave` instead of ending the process. */
export function gentleWatchDog(leave: (code: number, why: Leaving) => void): WatchDog {
  let shutdownReceived = false;
  let timer: NodeJS.Timeout | undefined;
  return {
    get shutdownReceived() {
      return shutdownReceived;
    },
    set shutdownReceived(value: boolean) {
      shutdownReceived = value;
    },
    initialize(params: InitializeParams) {
      const pid = params.processId;
      if (typeof pid !== 'number' || timer) return;
      timer = setInterval(() => {
        if (processExists(pid)) return;
        clearInterval(timer);
        leave(shutdownReceived ? 0 : 1, 'editor-gone');
      }, PARENT_POLL_MS);
      timer.unref(); // never what keeps the process (or a test run) alive
    },
    exit(code: number) {
      clearInterval(timer);
      leave(code, 'exit');
    },
  };
}

/** Whether a process with this id exists (EPERM: it does, and belongs to someone else). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
