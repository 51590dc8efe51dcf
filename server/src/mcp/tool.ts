// The shape every Cairn MCP tool shares: a zod schema (listed to clients and checked by Cairn
// itself, so a bad argument comes back as a JSON error naming the field), a limiter class, and a
// handler over server/src/ops that returns plain data. No tool touches git or files directly.
import { z } from 'zod';
import type { ErrorCode } from '../core/errors.js';
import type { OpContext } from '../ops/context.js';
import { BOUNDS } from './bounds.js';
import type { SearchService } from './search-port.js';

/** The `agentName` argument every tool takes. */
export const AGENT_NAME = z
  .string()
  .max(BOUNDS.name)
  .optional()
  .describe(
    'Your name, e.g. "claude-code"; commits and the audit log name it (default: the MCP client name)',
  );

/** What a handler sees besides its arguments. */
export interface ToolEnv {
  ctx: OpContext;
  /** The MCP session: memory_manager's default session folder, and the Session trailer. */
  sessionId: string;
  /** The store's search service (a worker: answers never wait for a build; `partial` says so). */
  search: SearchService;
  /** Folders the client declares (MCP roots/list), where memory_manager may read a file_path. */
  roots(): Promise<string[]>;
  /** How long a knowledge_graph read may scan memories never scanned before (ms). */
  graphScanMs: number;
}

/** A handler's answer: optional narrative text for the model, the JSON, and the audit result word. */
export interface ToolAnswer {
  text?: string;
  json: Record<string, unknown>;
  /** "active", "candidate", "ok", "refused" ...: written to the agent audit log. */
  result: string;
}

export type LimiterClass = 'retrieval' | 'ingestion';

export interface ToolDef<S extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  shape: S;
  /** Code for schema failures: INVALID_PAYLOAD for memory content, INVALID_REQUEST otherwise. */
  invalidCode: Extract<ErrorCode, 'INVALID_PAYLOAD' | 'INVALID_REQUEST'>;
  /** Skip Cairn's zod check because the op validates (memory_store: validateStorePayload names fields). */
  validatedByOp?: boolean;
  /** Which limiter admits a call, by arguments (knowledge_graph queries read, adds write). */
  limiter?: (args: z.infer<z.ZodObject<S>>) => LimiterClass | null;
  readOnly?: boolean;
  /** For the audit log: who asks and about what. */
  audit?: (args: z.infer<z.ZodObject<S>>) => { agentName?: string; topic?: string };
  handler: (args: z.infer<z.ZodObject<S>>, env: ToolEnv) => Promise<ToolAnswer>;
}

/** A tool with its argument type erased, so different tools fit one list. */
export type AnyTool = ToolDef<z.ZodRawShape>;

export function defineTool<S extends z.ZodRawShape>(def: ToolDef<S>): AnyTool {
  return def as unknown as AnyTool;
}
