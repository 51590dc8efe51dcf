// The agent tool surface: `cairn mcp` calls runMcpStdio.
export { runMcpStdio, createCairnMcpServer, newSessionId, type McpOptions } from './server.js';
export {
  hybridSearch,
  governedFiles,
  type SearchFn,
  type SearchAnswer,
  type SearchRequest,
} from './search-port.js';
export { agentAuditPath } from './audit.js';
