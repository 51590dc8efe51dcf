#!/usr/bin/env node
// Bundles dist/main.js (tsc's output) into dist/bundle/ with rolldown. Node resolves a few large
// files much faster than hundreds of small ESM modules: `cairn list` starts in about half the
// time. Each group of CLI commands is a chunk loaded when one of its commands runs (cli/registry.ts);
// heavy, rarely used parts (MCP SDK, transformers.js, isomorphic-git) are chunks loaded on demand;
// native packages stay external. bin/cairn.js falls back to dist/main.js.
//
// The bundle is CommonJS (.cjs): V8 can cache the compiled code of a script (vm.Script cachedData)
// but Node 20 offers that for no ES module, and bin/load-bundle.cjs keeps a code cache of these files
// (a warm `cairn search` spent about a sixth of its CPU parsing and compiling the bundle).
//
// The markdown parser (remark, micromark: about 500 KB of code) is read only by a file the fast
// scanner cannot take, and core/format calls it synchronously. So it is not a chunk but
// dist/bundle/markdown.cjs, a CommonJS file `require`d on first use (see MARKDOWN_SHIM): a
// `cairn search` never compiles it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'bundle');
const remarkModule = path.join(root, 'dist', 'core', 'format', 'remark.js');
const MARKDOWN_FILE = 'markdown.cjs';

/**
 * What the bundle has in place of core/format/remark.js: the same function, loading the CommonJS
 * markdown parser next to the bundle on its first call. A missing or damaged file is an error that
 * names it (parseMemory turns it into a parse-internal problem; nothing else is affected).
 */
const MARKDOWN_SHIM = `
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
let scan = null;
export function scanWithRemark(text, bodyStart) {
  if (scan === null) {
    const url = new URL('./${MARKDOWN_FILE}', import.meta.url);
    try {
      scan = createRequire(import.meta.url)(fileURLToPath(url)).scanWithRemark;
      if (typeof scan !== 'function') throw new Error('it does not export scanWithRemark');
    } catch (e) {
      scan = null;
      throw new Error(
        'cairn: the markdown parser ' + fileURLToPath(url) + ' cannot be loaded (' +
          String(e && e.message ? e.message.split('\\n')[0] : e) +
          '): reinstall Cairn, or run \`npm run build\` in a clone',
      );
    }
  }
  return scan(text, bodyStart);
}
`;

const SHIM_ID = '\0cairn-markdown-shim';
const markdownShim = {
  name: 'cairn-markdown-shim',
  resolveId(source, importer) {
    if (!importer || !source.endsWith('/remark.js')) return null;
    return path.resolve(path.dirname(importer), source) === remarkModule ? SHIM_ID : null;
  },
  load(id) {
    return id === SHIM_ID ? MARKDOWN_SHIM : null;
  },
};

const external = [/^node:/, /^@huggingface\//, /^onnxruntime/, 'sharp', 'better-sqlite3'];

rmSync(outDir, { recursive: true, force: true });
await build({
  // The search child process, the workspace worker, the resident search's scan worker and the
  // language server's scan thread (started next to the running code: compose.ts,
  // resident-search.ts) are entries of their own.
  input: {
    main: path.join(root, 'dist', 'main.js'),
    'search-child': path.join(root, 'dist', 'search-child.js'),
    'workspace-worker': path.join(root, 'dist', 'workspace-worker.js'),
    'scan-worker': path.join(root, 'dist', 'scan-worker.js'),
    'scan-thread-worker': path.join(root, 'dist', 'scan-thread-worker.js'),
  },
  platform: 'node',
  external,
  plugins: [markdownShim],
  output: { dir: outDir, format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs' },
  logLevel: 'warn',
});
await build({
  input: remarkModule,
  platform: 'node',
  external,
  output: { file: path.join(outDir, MARKDOWN_FILE), format: 'cjs' },
  logLevel: 'warn',
});

// The build id: a hash of every bundled file. Caches of what this code computes (server/src/
// build-id.ts: clean scans) are keyed on it, so a rebuild with other code never reuses them.
const buildHash = createHash('sha256');
for (const name of readdirSync(outDir).sort()) {
  buildHash.update(`${name}\0`).update(readFileSync(path.join(outDir, name)));
}
writeFileSync(path.join(outDir, 'build-id'), `${buildHash.digest('hex')}\n`);
