#!/usr/bin/env node
// Bundles dist/main.js (tsc's output) into dist/bundle/ with rolldown. Node resolves a few large
// files much faster than hundreds of small ESM modules: `cairn list` starts in about half the
// time. Heavy, rarely used parts (MCP SDK, transformers.js, isomorphic-git) stay separate chunks
// loaded on demand; native packages stay external. bin/cairn.js falls back to dist/main.js.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'bundle');
rmSync(outDir, { recursive: true, force: true });
await build({
  // The workers (compose.ts starts them next to the running code) are entries of their own.
  input: {
    main: path.join(root, 'dist', 'main.js'),
    'search-worker': path.join(root, 'dist', 'search-worker.js'),
    'workspace-worker': path.join(root, 'dist', 'workspace-worker.js'),
  },
  platform: 'node',
  external: [/^node:/, /^@huggingface\//, /^onnxruntime/, 'sharp', 'better-sqlite3'],
  output: { dir: outDir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
  logLevel: 'warn',
});
