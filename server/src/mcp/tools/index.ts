// Every tool the MCP server offers, in the order clients list them.
import type { AnyTool } from '../tool.js';
import { memoryGet, memoryRetrieve, memoryReview, memorySearch, memoryStore } from './memory.js';

export const ALL_TOOLS: AnyTool[] = [memoryStore, memoryRetrieve, memorySearch, memoryGet, memoryReview];
