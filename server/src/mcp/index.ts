// The agent tool surface: `cairn mcp` calls runMcpStdio.
export { runMcpStdio, createCairnMcpServer, newSessionId, type McpOptions } from './server.js';
export type { SearchAnswer, SearchRequest, SearchService } from './search-port.js';
export { agentAuditPath } from '../ops/agent-audit.js';
