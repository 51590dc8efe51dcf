// The folder of Cairn's own package.json, from wherever this code runs: dist/ after tsc, or the
// single-file bundle in dist/bundle/ (scripts/bundle.mjs). Used to find memory-template/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (
      existsSync(file) &&
      (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'cairn-memory'
    ) {
      return (cached = dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new Error('cairn: cannot find its own package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
}
