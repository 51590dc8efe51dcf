// Where the store on main still links a memory: `[[id]]` in MEMORY.md, in a memory or a daily note,
// and a memory's `supersedes` / `superseded_by` naming it; what `cairn check` reports as ref/unknown
// once that memory is gone (core/rules/references.ts). `forget` names them.
import { extractRefs, parseMemory } from '../core/format/index.js';
import { frontMatterIdRanges } from '../core/rules/index.js';
import { repoPath, type Store } from '../store/store.js';
import { readMainMemories } from './read.js';

export interface LinkLocation {
  /** Store-relative path: `MEMORY.md`, `memories/x.md`, `daily/2026-11-29.md`. */
  path: string;
  /** 1-based. */
  line: number;
}

/** Every place on `commit` that links `id`: MEMORY.md, then memories/ and daily/, by name and line. */
export async function linksTo(store: Store, commit: string, id: string): Promise<LinkLocation[]> {
  const found: LinkLocation[] = [];
  const refsIn = (file: string, text: string) => {
    for (const r of extractRefs(text))
      if (r.id === id) found.push({ path: file, line: r.range.start.line + 1 });
  };
  refsIn('MEMORY.md', (await store.repo.readText(commit, repoPath(store, 'MEMORY.md'))) ?? '');
  for (const doc of await readMainMemories(store, commit)) {
    const lines = new Set<number>();
    for (const r of doc.refs) if (r.id === id) lines.add(r.range.start.line + 1);
    const named = [...doc.frontMatter.supersedes, doc.frontMatter.superseded_by];
    if (named.includes(id)) {
      // The parse cache keeps no text or key ranges: the few memories naming it are parsed whole.
      const text = (await store.repo.readText(commit, repoPath(store, doc.path))) ?? '';
      const whole = parseMemory(text, { path: doc.path });
      for (const key of ['supersedes', 'superseded_by'] as const)
        for (const r of frontMatterIdRanges(whole, key)) if (r.id === id) lines.add(r.range.start.line + 1);
    }
    for (const line of [...lines].sort((a, b) => a - b)) found.push({ path: doc.path, line });
  }
  const daily = await store.repo.listDir(commit, repoPath(store, 'daily').replace(/\/$/, ''));
  for (const e of daily) {
    if (e.type !== 'blob' || !e.name.endsWith('.md')) continue;
    const text = await store.repo.readBlobText(e.oid);
    if (text?.includes(id)) refsIn(`daily/${e.name}`, text);
  }
  return found;
}
