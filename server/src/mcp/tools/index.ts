// Every tool the MCP server offers, in the order clients list them.
import type { AnyTool } from '../tool.js';
import { memoryAppend } from './append.js';
import { knowledgeGraph } from './graph.js';
import { memoryGet, memoryRetrieve, memoryReview, memorySearch, memoryStore } from './memory.js';
import { memoryManager } from './session.js';
import { memoryConsolidate, memoryImport, memoryLearn, memoryRefresh } from './tidy.js';

export const ALL_TOOLS: AnyTool[] = [
  memoryStore,
  memoryRetrieve,
  memorySearch,
  memoryGet,
  memoryAppend,
  knowledgeGraph,
  memoryManager,
  memoryReview,
  memoryLearn,
  memoryImport,
  memoryConsolidate,
  memoryRefresh,
];
