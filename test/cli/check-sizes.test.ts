// Issue 8, items 14 and 15: `cairn check` and the language server stay bounded on hostile stores.
// 900 copies of one body (findings grew pairwise: 639,200 at 800 copies, then `RangeError: Invalid
// string length`), 900 memories that all contradict each other, and a 10 MB memory.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn } from '../helpers/store.js';
import { git, makeStore, memoryText, startClient, uriOf, type TestClient } from '../lsp/lsp-helper.js';

const COPIES = 900;
const id = (prefix: string, i: number) => `${prefix}-${String(i).padStart(4, '0')}`;

/** Distinct, unrelated text per memory, so only the facts connect them (no near duplicates). */
function distinctBody(i: number): string {
  const words = ['amber', 'birch', 'cobalt', 'dune', 'ember', 'fjord', 'gale', 'heron', 'iris', 'jade'];
  let s = i * 7919 + 17;
  const pick = () => words[(s = (s * 1103515245 + 12345) >>> 0) % words.length] + ((s >>> 8) % 997);
  return Array.from({ length: 24 }, pick).join(' ') + '.';
}

/** A store committed in one commit with the git CLI (fast), files generated directly. */
function storeWith(files: Record<string, string>): string {
  return makeStore(files, { message: 'store(init): generated' });
}

async function checkJson(root: string): Promise<{ json: any; bytes: number; code: number }> {
  const r = await cairn(['check', '--store', root, '--format', 'json']);
  expect(r.stderr).not.toMatch(/RangeError|Invalid string length/);
  return { json: JSON.parse(r.stdout), bytes: r.stdout.length, code: r.code };
}

describe('groups of findings', () => {
  let copies: string;
  let conflicting: string;
  beforeAll(() => {
    const body = 'The build cache lives in S3 and is evicted after fourteen days without a hit.';
    copies = storeWith(
      Object.fromEntries(
        Array.from({ length: COPIES }, (_, i) => [
          `memories/${id('copy', i)}.md`,
          memoryText(id('copy', i), body),
        ]),
      ),
    );
    conflicting = storeWith(
      Object.fromEntries(
        Array.from({ length: COPIES }, (_, i) => [
          `memories/${id('owner', i)}.md`,
          memoryText(
            id('owner', i),
            distinctBody(i),
            `triples:\n  - [billing-service, owned-by, team-${i}]\n`,
          ),
        ]),
      ),
    );
  });

  it(`reports ${COPIES} copies of one body as one finding naming 20 of them and counting the rest`, async () => {
    const { json, bytes, code } = await checkJson(copies);
    expect(code).toBe(0);
    const dups = json.findings.filter((f: any) => f.code === 'duplicate/exact');
    expect(dups).toHaveLength(1);
    const [group] = dups;
    expect(group.path).toBe('memories/copy-0000.md');
    expect(group.message).toMatch(
      /^same content as 899 other memories: "copy-0001", "copy-0002", "copy-0003" and 896 more: /,
    );
    expect(group.related).toHaveLength(20);
    expect(group.related[0]).toMatchObject({ path: 'memories/copy-0001.md' });
    expect(group.relatedOmitted).toBe(879);
    expect(json.findings).toHaveLength(1);
    expect(bytes).toBeLessThan(20_000);
    const text = await cairn(['check', '--store', copies]);
    expect(text.stdout.trim().split('\n')).toHaveLength(2);
    const sarif = JSON.parse((await cairn(['check', '--store', copies, '--format', 'sarif'])).stdout);
    expect(sarif.runs[0].results).toHaveLength(1);
    expect(sarif.runs[0].results[0].relatedLocations).toHaveLength(20);
    expect(sarif.runs[0].results[0].properties).toEqual({ relatedOmitted: 879 });
  });

  it(`reports ${COPIES} memories that all contradict each other as one finding`, async () => {
    const { json, bytes } = await checkJson(conflicting);
    const conflicts = json.findings.filter((f: any) => f.code === 'conflict/fact');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0].path).toBe('memories/owner-0000.md');
    expect(conflicts[0].message).toMatch(
      /^conflicts with 899 facts about "billing-service owned-by": "owner-0001" says "team-1", .* and 896 more: /,
    );
    expect(conflicts[0].related).toHaveLength(20);
    expect(conflicts[0].relatedOmitted).toBe(879);
    expect(json.findings.map((f: any) => f.code)).toEqual(['conflict/fact']);
    expect(bytes).toBeLessThan(20_000);
  });

  describe('in the editor', () => {
    let c: TestClient;
    beforeAll(async () => {
      c = await startClient(copies);
    });
    afterAll(() => c?.close());

    it('gives one bounded diagnostic with related information for one of the copies', async () => {
      const rel = `memories/${id('copy', 450)}.md`;
      c.open(
        rel,
        memoryText(
          id('copy', 450),
          'The build cache lives in S3 and is evicted after fourteen days without a hit.',
        ),
      );
      const diags = await c.waitDiagnostics(rel, (d) => d.length > 0, 30_000);
      expect(diags.map((d) => d.code)).toEqual(['duplicate/exact']);
      expect(diags[0].message).toMatch(/^same content as 899 other memories: .* and 896 more/);
      expect(diags[0].relatedInformation).toHaveLength(20);
      expect(diags[0].relatedInformation![0].location.uri).toBe(uriOf(copies, 'memories/copy-0000.md'));
    });
  });

  describe('in the editor, facts', () => {
    let c: TestClient;
    beforeAll(async () => {
      c = await startClient(conflicting);
    });
    afterAll(() => c?.close());

    it('gives one bounded conflict diagnostic for one of the contradicting memories', async () => {
      const rel = `memories/${id('owner', 7)}.md`;
      c.open(
        rel,
        memoryText(id('owner', 7), distinctBody(7), 'triples:\n  - [billing-service, owned-by, team-7]\n'),
      );
      const diags = await c.waitDiagnostics(rel, (d) => d.length > 0, 30_000);
      expect(diags.map((d) => d.code)).toEqual(['conflict/fact']);
      expect(diags[0].relatedInformation).toHaveLength(20);
      expect(diags[0].message).toMatch(/^conflicts with 899 facts about "billing-service owned-by"/);
    });
  });
});

describe('a 10 MB memory', () => {
  it('is checked with a markdown-limit warning, not a stall', async () => {
    const root = storeWith({
      'memories/cache-policy.md': memoryText('cache-policy', 'Entries expire in ten minutes.'),
    });
    const paragraph = 'Cache notes with a | pipe and [[cache-policy]], `code` too. '.repeat(6) + '\n\n';
    writeFileSync(
      path.join(root, 'memories/huge.md'),
      memoryText('huge', paragraph.repeat(Math.ceil(10_000_000 / paragraph.length))),
    );
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'memory(add): huge');
    const { json, code } = await checkJson(root);
    expect(code).toBe(0);
    expect(json.findings.map((f: any) => [f.path, f.code])).toEqual([['memories/huge.md', 'markdown-limit']]);
  });
});
