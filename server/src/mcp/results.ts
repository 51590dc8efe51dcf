// Converting at the edge: a handler's answer or a thrown error becomes an MCP tool result.
// Errors are tool results (isError) with a JSON body agents can act on: errorCode, error, and
// the field to fix or the time to wait.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ZodIssue } from 'zod';
import { CairnError, isCairnError, type ErrorCode } from '../core/errors.js';
import { withResultNames } from './names.js';
import type { ToolAnswer } from './tool.js';

export interface ToolErrorBody {
  errorCode: ErrorCode;
  error: string;
  field?: string;
  retryAfterMs?: number;
}

export function answerToResult(answer: ToolAnswer): CallToolResult {
  // camelCase fields, with the snake_case names of earlier releases beside them for now (names.ts).
  const data = withResultNames(answer.json);
  const json = JSON.stringify(data, null, 2);
  const content = answer.text
    ? [
        { type: 'text' as const, text: answer.text },
        { type: 'text' as const, text: json },
      ]
    : [{ type: 'text' as const, text: json }];
  return { content, structuredContent: data };
}

/** Any thrown value -> the JSON error body; unexpected errors become INTERNAL with their message. */
export function errorBody(err: unknown): ToolErrorBody {
  if (isCairnError(err)) {
    const body: ToolErrorBody = { errorCode: err.code, error: err.message };
    if (typeof err.data?.field === 'string') body.field = err.data.field;
    if (typeof err.data?.retryAfterMs === 'number') body.retryAfterMs = err.data.retryAfterMs;
    return body;
  }
  return { errorCode: 'INTERNAL', error: err instanceof Error ? err.message : String(err) };
}

export function errorToResult(body: ToolErrorBody): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body, null, 2) }],
    structuredContent: { ...body },
    isError: true,
  };
}

/** The first schema issue as a CairnError naming the field and what it must be. */
export function issueToError(code: 'INVALID_PAYLOAD' | 'INVALID_REQUEST', issue: ZodIssue): CairnError {
  let field = issue.path.join('.') || 'arguments';
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    field = issue.keys[0];
    message = 'is not a parameter of this tool';
  } else if (issue.code === 'invalid_type' && issue.received === 'undefined') {
    message = `is required (${issue.expected})`;
  } else if (issue.code === 'too_big' && (issue.type === 'string' || issue.type === 'array')) {
    const unit = issue.type === 'string' ? 'characters' : 'items';
    message = `is over the limit of ${issue.maximum} ${unit}`;
  }
  return new CairnError(code, `${field}: ${message}`, { field });
}
