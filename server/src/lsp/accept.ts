// cairn.accept / cairn/accept: the same acceptCandidate as `cairn accept`. Two refusals pass with a
// person's explicit word (a candidate that also changes store files, a text a person rejected): the
// terminal gives it with a flag, the editor by asking the person (window/showMessageRequest). The
// command's arguments never carry that word: a code action or a workspace can be written by an
// agent or an attacker, and must not skip the question. Nothing is held while the person reads:
// the refusal leaves the store as it was, and "Accept anyway" runs the whole accept again.
import type { CancellationToken } from 'vscode-languageserver/node';
import { CairnError, isCairnError } from '../core/errors.js';
import type { OpContext } from '../ops/context.js';
import type { AcceptOverride, AcceptResult } from '../ops/review.js';
import type { ServerContext } from './context.js';

export const ACCEPT_ANYWAY = 'Accept anyway';
export const CANCEL = 'Cancel';

/**
 * Accepts `id` with the scanner rules `allow`; a refusal a person may pass is put to the person,
 * and only their "Accept anyway" adds that one override (each asked for on its own). A client that
 * cannot ask gets the refusal as it is.
 */
export async function acceptAsking(
  ctx: ServerContext,
  ops: OpContext,
  id: string,
  allow: string[],
  token?: CancellationToken,
): Promise<AcceptResult> {
  const { acceptCandidate } = await import('../ops/review.js');
  const confirmed: Partial<Record<AcceptOverride, true>> = {};
  // The proposal's commit the first question was about: a branch moved meanwhile is not accepted.
  let candidateTip: string | undefined;
  for (;;) {
    try {
      return await acceptCandidate(ops, id, { allow, ...confirmed, candidateTip });
    } catch (e) {
      const override = overrideOf(e);
      // Asked once per override: the same refusal again (it has one) is the answer as it is.
      if (!override || confirmed[override] || !ctx.caps.window?.showMessage) throw e;
      if (!(await personSays(ctx, question(id, e as CairnError), token)))
        throw new CairnError(
          'CANCELLED',
          `cairn: "${id}" was not accepted (no one chose "${ACCEPT_ANYWAY}"); nothing was changed`,
          { refused: (e as CairnError).code, ...(e as CairnError).data },
        );
      confirmed[override] = true;
      const shown = (e as CairnError).data?.candidateTip;
      candidateTip ??= typeof shown === 'string' ? shown : undefined;
    }
  }
}

function overrideOf(e: unknown): AcceptOverride | null {
  const o = isCairnError(e) ? e.data?.override : undefined;
  return o === 'allowStoreFiles' || o === 'overrideRejection' ? o : null;
}

/** The refusal in plain words, for a person who may not know the terminal's flags. */
function question(id: string, e: CairnError): string {
  const d = e.data ?? {};
  if (d.override === 'allowStoreFiles') {
    const files = d.storeFiles as string[];
    const settings = files.includes('cairn.yaml')
      ? " (cairn.yaml holds the store's governance and scanner settings)"
      : '';
    return (
      `Candidate "${id}" also changes store files, not only memories: ${files.map(quoted).join(', ')}. ` +
      `Accepting merges them onto main with the memory${settings}. Accept anyway?`
    );
  }
  const why = d.reason ? `: ${quoted(d.reason)}` : '';
  if (d.builtOn)
    return `"${id}" is built on a proposal a person rejected (tag ${String(d.tag)}${why}): accepting brings that change onto main too. Accept it anyway?`;
  return d.path
    ? `A person rejected this text before: ${quoted(d.path)} (tag ${String(d.tag)}${why}). Accept "${id}" anyway?`
    : `"${id}" is the very proposal a person rejected (tag ${String(d.tag)}). Accept it anyway?`;
}

/**
 * A value from the branch (a file name, a reason) in quotes with its control, invisible and
 * direction characters escaped: a file named "x.md\n\nChecked: safe" must not write the question.
 */
function quoted(value: unknown): string {
  return JSON.stringify(String(value)).replace(
    /[\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** True only for an explicit "Accept anyway": Cancel, no answer, a cancelled request or a gone client is no. */
async function personSays(ctx: ServerContext, message: string, token?: CancellationToken): Promise<boolean> {
  if (token?.isCancellationRequested) return false;
  const cancelled = new Promise<null>((resolve) => token?.onCancellationRequested(() => resolve(null)));
  try {
    const answer = await Promise.race([
      ctx.connection.window.showWarningMessage(message, { title: ACCEPT_ANYWAY }, { title: CANCEL }),
      cancelled,
    ]);
    return answer?.title === ACCEPT_ANYWAY;
  } catch {
    return false;
  }
}
