// How long each kind of tool argument may be, so no single argument costs seconds or gigabytes (a
// 9 MB memory_retrieve query took 19 s and 1.24 GB). Whole messages are capped as well
// (MAX_MESSAGE_BYTES in stdio-transport.ts); docs/agents.md lists both.
import { MAX_QUERY_CHARS } from '../ops/search.js';

export const BOUNDS = {
  /** memory_retrieve / memory_search queries: a question or a paragraph, not a document. */
  query: MAX_QUERY_CHARS,
  /** memory_retrieve contextHints: items, and characters each. */
  hints: 20,
  hint: 200,
  /** Ids, names, titles, sessions, dates. */
  name: 200,
  /** Facts' subject, predicate and object (as memory_store's list items). */
  text: 2_000,
  /** File paths. */
  path: 4_096,
} as const;
