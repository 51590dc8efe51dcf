// findStoreLinks sorts only the links and folders of a folder (session 11: sorting all 10,000 names
// of a large memories/ was ~15 ms of a warm language-server start). Property: on real folders of
// random files, links and subfolders, it finds what the plain walk (every entry sorted) finds, in
// the same order.
import { mkdirSync, readdirSync, readlinkSync, symlinkSync, writeFileSync, type Dirent } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isStoreFilePath } from '../../server/src/core/rules/index.js';
import { findLink, findStoreLinks } from '../../server/src/store/safe-fs.js';
import { cleanupTemps, tempDir } from './git-helpers.js';

afterAll(cleanupTemps);

/** The walk before session 11: every entry of a folder sorted, then links kept. */
function plainLinksIn(root: string, dir: string, depth: number, keep: (rel: string) => boolean) {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: { at: string; target: string }[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = `${dir}/${e.name}`;
    if (e.isSymbolicLink() && keep(rel)) out.push({ at: rel, target: readlinkSync(path.join(root, rel)) });
    else if (e.isDirectory() && depth > 1) out.push(...plainLinksIn(root, rel, depth - 1, keep));
  }
  return out;
}

function plainStoreLinks(root: string) {
  const out: { at: string; target: string }[] = [];
  for (const top of ['.cairn', 'MEMORY.md', 'daily', 'memories']) {
    const link = findLink(root, top);
    if (link) out.push(link);
    else if (top === '.cairn') out.push(...plainLinksIn(root, top, 4, () => true));
    else if (top !== 'MEMORY.md') out.push(...plainLinksIn(root, top, 1, isStoreFilePath));
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}

const name = fc.stringMatching(/^[a-zA-Zéè0-9_-]{1,6}$/);
const entry = fc.record({
  folder: fc.constantFrom('memories', 'daily', '.cairn', '.cairn/cache', '.cairn/a/b'),
  name,
  ext: fc.constantFrom('.md', '.txt', ''),
  kind: fc.constantFrom('file', 'link', 'dir'),
});

describe('findStoreLinks', () => {
  it('finds the links the plain walk finds, in the same order', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        const root = tempDir('cairn-links-');
        for (const e of entries) {
          const dir = path.join(root, e.folder);
          mkdirSync(dir, { recursive: true });
          const at = path.join(dir, e.name + e.ext);
          try {
            if (e.kind === 'file') writeFileSync(at, 'x\n');
            else if (e.kind === 'dir') mkdirSync(at, { recursive: true });
            else symlinkSync(`/elsewhere/${e.name}`, at);
          } catch {
            // the name is taken already (a file, a link or a folder): keep the first
          }
        }
        expect(findStoreLinks(root)).toEqual(plainStoreLinks(root));
      }),
      { numRuns: 60 },
    );
  });
});
