// The agent tools search through the same operation as the CLI and the language server.
export {
  hybridSearch,
  type SearchAnswer,
  type SearchEntry,
  type SearchFn,
  type SearchRequest,
} from '../ops/search.js';
export { searchFiles as governedFiles } from '../ops/search-files.js';
