// Processes seen from outside, for tests of what a server starts and stops (Linux /proc).
import { readFileSync } from 'node:fs';

/** Whether a process with this id runs (signal 0 only asks). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` is a search process (the bundle's or tsc's search-child entry). */
export function isSearchProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('search-child');
  } catch {
    return false;
  }
}
