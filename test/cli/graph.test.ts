// `cairn graph` as a real process on real stores: mermaid, DOT and SVG with hostile entity names
// (quotes, brackets, newlines, `-->`, `%%`, HTML) that must stay text in every format; as-of,
// entity, predicate and status filters; the sampled notice; --out and --json; bad options refused.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliStores, git } from '../helpers/store.js';

const stores = cliStores();

const HOSTILE = `---
id: hostile
title: "Hostile <b>names</b> \\"quoted\\" [x] --> y"
kind: fact
triples:
  - ["Al\\"ice] --> B{ob}", "works_on", "<script>alert(1)</script>"]
  - {s: "line\\nbreak %% comment", p: "a-->b|c", o: "x\\\\N\\"y", from: 2025-01-01, until: 2026-01-01}
  - ["Bob & <i>co</i>", "owns", "]]> end; click n0 call alert()"]
---

Links to [[team]].
`;

const TEAM = `---
id: team
title: Who works on what
kind: fact
triples:
  - {s: Alice, p: works_on, o: billing, from: 2025-01-01, until: 2026-06-01}
  - {s: Alice, p: works_on, o: search, from: 2026-06-01}
  - [Bob, works_on, billing]
---

The team.
`;

async function storeWithGraph() {
  const s = await stores.newStore();
  writeFileSync(path.join(s.dir, 'memories/hostile.md'), HOSTILE);
  writeFileSync(path.join(s.dir, 'memories/team.md'), TEAM);
  git(s.dir, 'add', '-A');
  git(s.dir, 'commit', '-qm', 'hand edit: graph memories');
  return s;
}

// Mermaid's grammar as we emit it: generated ids, quoted labels of safe characters and entity codes.
const LABEL = String.raw`"[\p{L}\p{N} _.,:/@+=#;…-]*"`;
const MERMAID_LINE = new RegExp(
  [
    String.raw`^flowchart LR$`,
    String.raw`^  %% [^\n]*$`,
    String.raw`^  n\d+(\[${LABEL}\]|\(${LABEL}\))$`,
    String.raw`^  n\d+ (-->|-\.->|==>|---)(\|${LABEL}\|)? n\d+$`,
    String.raw`^  classDef [a-z,]+ [a-z:#0-9,. -]+$`,
    String.raw`^  class n\d+(,n\d+)* [a-z]+$`,
  ].join('|'),
  'u',
);
const DOT_STRING = String.raw`"(?:[^"\\\n]|\\.)*"`;
const DOT_LINE = new RegExp(
  [
    String.raw`^digraph cairn \{$`,
    String.raw`^\}$`,
    String.raw`^  label=${DOT_STRING};$`,
    String.raw`^  labelloc=t; rankdir=LR; fontname="sans-serif";$`,
    String.raw`^  node \[[^\]]*\]; edge \[[^\]]*\];$`,
    String.raw`^  "n\d+" \[label=${DOT_STRING}(, [a-z]+=(${DOT_STRING}|[a-z0-9.]+))*\];$`,
    String.raw`^  "n\d+" -> "n\d+" \[((label=${DOT_STRING}|[a-z]+=(${DOT_STRING}|[a-z0-9.]+))(, )?)*\];$`,
  ].join('|'),
);

describe('cairn graph', () => {
  it('writes mermaid that hostile names cannot break, with facts outside their window drawn dashed', async () => {
    const s = await storeWithGraph();
    const r = await s.run('graph', '--format', 'mermaid', '--as-of', '2026-07-01');
    expect(r.code).toBe(0);
    for (const line of r.stdout.trimEnd().split('\n')) expect(line).toMatch(MERMAID_LINE);
    expect(r.stdout).not.toMatch(/<script|"Al"|-->\s*B|%% comment/);
    expect(r.stdout).toContain('#60;script#62;alert#40;1#41;#60;/script#62;');
    expect(r.stdout).toMatch(/-\.->\|"works_on #40;ended#41;"\|/);
    expect(r.stdout).toMatch(/ -->\|"works_on"\|/);
  });

  it('writes DOT with every label a closed quoted string', async () => {
    const s = await storeWithGraph();
    const r = await s.run('graph', '--format', 'dot', '--as-of', '2025-06-01');
    expect(r.code).toBe(0);
    for (const line of r.stdout.trimEnd().split('\n')) expect(line).toMatch(DOT_LINE);
    expect(r.stdout).toContain(String.raw`label="x\\N\"y"`);
    expect(r.stdout).toContain(String.raw`label="Al\"ice] --> B{ob}"`);
  });

  it('writes a deterministic SVG with every text escaped, to --out, and says what it wrote', async () => {
    const s = await storeWithGraph();
    const out = path.join(s.parent, 'graph.svg');
    const r = await s.run('graph', '--format', 'svg', '--as-of', '2026-07-01', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Wrote svg of \d+ nodes and \d+ edges to .*graph\.svg/);
    const svg = readFileSync(out, 'utf8');
    // Only our own elements: no markup from a name survives as a tag.
    const tags = [...svg.matchAll(/<\/?([a-zA-Z]+)/g)].map((m) => m[1]);
    expect(new Set(tags)).toEqual(
      new Set(['svg', 'title', 'style', 'defs', 'marker', 'path', 'rect', 'text', 'g', 'line', 'circle']),
    );
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('Bob &amp; &lt;i&gt;co&lt;/i&gt;');
    expect(svg).not.toContain(']]>');
    expect(svg).toMatch(/class="fact ended"/);
    const again = await s.run('graph', '--format', 'svg', '--as-of', '2026-07-01');
    expect(again.stdout).toBe(svg);
  });

  it('filters by entity, predicate and status, prints JSON, and reports a sample', async () => {
    const s = await storeWithGraph();
    const bob = JSON.parse((await s.run('graph', '--entity', 'bob', '--json')).stdout);
    expect(bob.nodes.map((n: { id: string }) => n.id).sort()).toEqual([
      'entity:billing',
      'entity:bob',
      'memory:team',
    ]);
    const owns = JSON.parse((await s.run('graph', '--predicate', 'owns', '--json')).stdout);
    expect(
      owns.edges.filter((e: { type: string }) => e.type === 'fact').map((e: { label: string }) => e.label),
    ).toEqual(['owns']);
    const none = JSON.parse((await s.run('graph', '--status', 'candidate', '--json')).stdout);
    expect(none.nodes).toEqual([]);
    const small = await s.run('graph', '--max-nodes', '3');
    expect(small.code).toBe(0);
    // The whole note, as on stderr: it was cut to a label's length and entity-coded ("#40;around the best-co…").
    expect(small.stdout).toMatch(
      /%% Sampled: 3 of \d+ nodes shown \(around the best-connected ones\); narrow it with --entity, --predicate or --status\n/,
    );
    expect(small.stderr).toMatch(/cairn: Sampled: 3 of \d+ nodes shown \(around the best-connected ones\)/);
  });

  it('refuses a bad format, date, status or unknown entity with a clear message and exit code', async () => {
    const s = await storeWithGraph();
    expect(await s.run('graph', '--format', 'png')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--format png is not a format/),
    });
    expect(await s.run('graph', '--as-of', 'soon')).toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/asOf: "soon"/),
    });
    expect(await s.run('graph', '--status', 'gone')).toMatchObject({ code: 3 });
    expect(await s.run('graph', '--entity', 'Nobody')).toMatchObject({
      code: 4,
      stderr: expect.stringMatching(/no fact names "Nobody"/),
    });
  });
});
