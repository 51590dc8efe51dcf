#!/usr/bin/env node
// Bundles the review page (web/src, browser TypeScript) into dist/web/ with rolldown: app.js, its
// styles and index.html. Everything the page runs is in there (cytoscape included for the graph):
// `cairn serve` fetches nothing from the network and serves only these files.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'web');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
await build({
  input: { app: path.join(root, 'web', 'src', 'main.ts') },
  platform: 'browser',
  output: {
    dir: outDir,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
    minify: true,
  },
  logLevel: 'warn',
});
copyFileSync(path.join(root, 'web', 'index.html'), path.join(outDir, 'index.html'));
copyFileSync(path.join(root, 'web', 'app.css'), path.join(outDir, 'app.css'));
