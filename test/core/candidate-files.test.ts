// core/candidate-files.ts: every path a candidate changes lands in exactly one bucket, and only a
// file directly in the store's memories/ folder counts as a memory.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyCandidateFiles } from '../../server/src/core/candidate-files.js';

const segment = fc.stringMatching(/^[a-z.][a-z0-9._-]{0,8}$/);
const repoPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
const prefix = fc.oneof(
  fc.constant(''),
  segment.map((s) => `${s}/`),
);

describe('classifyCandidateFiles', () => {
  it('sorts examples as a reviewer would', () => {
    expect(
      classifyCandidateFiles(
        ['mem/memories/a.md', 'mem/cairn.yaml', 'mem/memories/sub/b.md', 'src/app.js', 'memo/x.md'],
        'mem/',
      ),
    ).toEqual({
      memories: ['memories/a.md'],
      storeFiles: ['cairn.yaml', 'memories/sub/b.md'],
      outsideStore: ['src/app.js', 'memo/x.md'],
    });
  });

  it('puts every path in one bucket; memories are memories/<name>.md inside the store', () => {
    fc.assert(
      fc.property(fc.uniqueArray(repoPath, { maxLength: 12 }), prefix, (paths, pre) => {
        const { memories, storeFiles, outsideStore } = classifyCandidateFiles(paths, pre);
        expect(memories.length + storeFiles.length + outsideStore.length).toBe(paths.length);
        for (const m of memories) {
          expect(m).toMatch(/^memories\/[^/]+\.md$/);
          expect(paths).toContain(pre + m);
        }
        for (const f of storeFiles) expect(paths).toContain(pre + f);
        for (const o of outsideStore) expect(o.startsWith(pre)).toBe(false);
      }),
    );
  });
});
