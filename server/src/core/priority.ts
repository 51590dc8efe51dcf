// Nice values for background work, relative to the process that starts it. Pure.

/** The lowest priority there is (the highest nice value) on Linux and macOS. */
const LOWEST = 19;

/**
 * The nice value `by` steps below `current`, capped at the lowest: background work stays below the
 * server that started it even when that server already runs at a low priority (`nice cairn lsp`).
 * @example lowerPriority(0, 10) // 10
 * @example lowerPriority(10, 10) // 19
 */
export function lowerPriority(current: number, by: number): number {
  return Math.min(LOWEST, current + by);
}
