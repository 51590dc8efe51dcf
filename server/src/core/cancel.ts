// Cancellation as the rule passes see it: a flag someone else sets (an LSP CancellationToken has
// exactly this shape; so does a source the language server trips when a newer edit arrives). Work
// that takes long checks it between steps and stops with CANCELLED instead of finishing for nobody.
import { CairnError } from './errors.js';

export interface CancelToken {
  readonly isCancellationRequested: boolean;
}

/** A token that is never cancelled, for callers with nothing to cancel (`cairn check`). */
export const NOT_CANCELLED: CancelToken = { isCancellationRequested: false };

/** Throws CANCELLED when `token` was cancelled. */
export function throwIfCancelled(token: CancelToken | undefined): void {
  if (token?.isCancellationRequested)
    throw new CairnError('CANCELLED', 'cancelled: a newer edit or the client replaced this request');
}

export function isCancelled(e: unknown): boolean {
  return e instanceof CairnError && e.code === 'CANCELLED';
}
