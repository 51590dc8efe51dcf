// lsp/memory.ts: after an edit's diagnostics are sent, a young generation at least half full is
// collected then, so that the next edit does not meet a scavenge (edit -> diagnostics' p95 at
// 10,000 memories, bench/service.mjs). V8 flags are process-wide: each case runs in its own node
// process, with the compiled module (`npm run build` first) and V8's own gc reports.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const compiled = fileURLToPath(new URL('../../dist/lsp/memory.js', import.meta.url));

/** Runs `body` after the module is loaded; prints the young generation's fill and the gc reports. */
function run(body: string, owns = true) {
  const script = `
    import v8 from 'node:v8';
    import { PerformanceObserver } from 'node:perf_hooks';
    const m = await import(${JSON.stringify(compiled)});
    if (${owns}) m.keepYoungGenerationSmall();
    const fill = () => {
      const y = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
      return y.space_used_size / (y.space_used_size + y.space_available_size);
    };
    const kinds = [];
    const seen = new PerformanceObserver((l) => kinds.push(...l.getEntries().map((e) => e.detail.kind)));
    seen.observe({ entryTypes: ['gc'] });
    /** From an empty young generation (what survives two scavenges is promoted), garbage until \`to\` of it is used. */
    const garbage = async (to) => {
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      await new Promise((resolve) => setTimeout(resolve, 50)); // their reports, before counting
      kinds.length = 0;
      let k = 0;
      while (fill() < to) k += [k, { k }].length;
      return k;
    };
    ${body}`;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

describe.skipIf(!existsSync(compiled))('the young generation after an edit', () => {
  it('is collected when at least half full, and the collection is a scavenge', () => {
    const r = run(`
      await garbage(0.6);
      const before = fill();
      m.tidyAfterEdit();
      const after = fill();
      await new Promise((resolve) => setTimeout(resolve, 50)); // gc reports arrive asynchronously
      console.log(JSON.stringify({ before, after, kinds }));`);
    expect(r.before).toBeGreaterThanOrEqual(0.5);
    expect(r.after).toBeLessThan(0.2);
    expect(r.kinds).toContain(1); // NODE_PERFORMANCE_GC_MINOR
    expect(r.kinds).not.toContain(4); // never a full collection on the way
  });

  it('is left alone while less than half full, and in a process the server does not own', () => {
    const below = run(`
      await garbage(0.2);
      const before = fill();
      m.tidyAfterEdit();
      await new Promise((resolve) => setTimeout(resolve, 50));
      console.log(JSON.stringify({ before, after: fill(), kinds }));`);
    expect(below.before).toBeLessThan(0.5);
    expect(below.kinds).toEqual([]);
    // A server inside another program (tests, an embedding editor) leaves its heap to it.
    const notOwned = run(
      `
      await garbage(0.6);
      m.tidyAfterEdit();
      await new Promise((resolve) => setTimeout(resolve, 50));
      console.log(JSON.stringify({ kinds }));`,
      false,
    );
    expect(notOwned.kinds).toEqual([]);
  });
});
