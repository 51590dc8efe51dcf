// The agent tools search through the store's one search service (ops/search.ts), which the
// composition root builds and hands to the MCP server.
export type { SearchAnswer, SearchEntry, SearchRequest, SearchService, AgentEntry } from '../ops/search.js';
