// Ids that read as instructions never reach the agent (core/withheld-id): every answer and error of
// every tool carries them as handles, and every argument takes a handle back for the id. Done here,
// at the one door all tools share, so that no answer (a path, a branch, a withheld note's command,
// a listing) is missed.
import { handlesIn, resolveHandlesDeep, withheldIdsNote, withholdIdsDeep } from '../core/withheld-id.js';
import type { OpContext } from '../ops/context.js';
import { idsOfHandles } from '../ops/id-handles.js';
import type { ToolAnswer } from './tool.js';

/** A tool's arguments with each handle replaced by its id; `given` is what this server handed out. */
export async function argsWithIds(
  ctx: OpContext,
  args: Record<string, unknown>,
  given: ReadonlyMap<string, string>,
): Promise<Record<string, unknown>> {
  const handles = handlesIn(JSON.stringify(args));
  if (!handles.length) return args;
  return resolveHandlesDeep(args, await idsOfHandles(ctx, handles, given));
}

/**
 * The answer with each id that reads as an instruction replaced by its handle, in the JSON and the
 * narrative, and `withheldIds` saying so. `given` keeps every handle handed out.
 */
export function answerWithoutIds(answer: ToolAnswer, given: Map<string, string>): ToolAnswer {
  const seen = new Map<string, string>();
  const json = withholdIdsDeep(answer.json, seen);
  const text = answer.text === undefined ? undefined : withholdIdsDeep(answer.text, seen);
  if (!seen.size) return answer;
  for (const [h, id] of seen) given.set(h, id);
  return {
    ...answer,
    ...(text === undefined ? {} : { text }),
    json: { ...json, withheldIds: { handles: [...seen.keys()], note: withheldIdsNote([...seen.keys()]) } },
  };
}
