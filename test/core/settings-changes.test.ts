// What a cairn.yaml change does to governance, as pure logic: which settings changed and which
// changes let more through without a person.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, parseConfig, type CairnConfig } from '../../server/src/core/config.js';
import { settingRange, settingsChanges } from '../../server/src/core/settings-changes.js';

const MODES = ['manual', 'selective', 'aggressive'] as const;
const ORIGINS = ['human', 'conversation', 'background', 'import'] as const;

const config = fc
  .record({
    commitMode: fc.constantFrom(...MODES),
    autoFloor: fc.double({ min: 0, max: 1, noNaN: true }),
    candidateOrigins: fc.subarray([...ORIGINS]),
    threshold: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    maxResults: fc.integer({ min: 1, max: 20 }),
  })
  .map((r): CairnConfig => {
    const c = structuredClone(DEFAULT_CONFIG);
    c.governance.commitMode = r.commitMode;
    c.governance.autoFloor = r.autoFloor;
    c.governance.candidateOrigins = [...r.candidateOrigins];
    c.scan.injection.threshold = r.threshold;
    c.search.maxResults = r.maxResults;
    return c;
  });

describe('settingsChanges', () => {
  it('a config compared with itself has no changes', () => {
    fc.assert(
      fc.property(config, (c) => {
        expect(settingsChanges(c, structuredClone(c), 0.55)).toEqual([]);
      }),
    );
  });

  it('a numeric or ordered setting weakens in at most one direction', () => {
    fc.assert(
      fc.property(config, config, (a, b) => {
        const there = settingsChanges(a, b, 0.55);
        const back = settingsChanges(b, a, 0.55);
        expect(there.map((c) => c.key)).toEqual(back.map((c) => c.key));
        for (const key of ['governance.commitMode', 'governance.autoFloor', 'scan.injection.threshold']) {
          const [x, y] = [there.find((c) => c.key === key), back.find((c) => c.key === key)];
          if (x) expect(Boolean(x.weakens && y!.weakens)).toBe(false);
        }
      }),
    );
  });

  it('names the directions that let more through', () => {
    const base = structuredClone(DEFAULT_CONFIG);
    const open = structuredClone(base);
    open.governance.commitMode = 'aggressive';
    open.governance.autoFloor = 0.6;
    open.governance.candidateOrigins = ['background'];
    open.scan.injection.threshold = 0.9;
    open.search.maxResults = 9;
    expect(settingsChanges(base, open, 0.55)).toEqual([
      { key: 'governance.commitMode', from: '"selective"', to: '"aggressive"', weakens: expect.any(String) },
      { key: 'governance.autoFloor', from: '0.8', to: '0.6', weakens: expect.any(String) },
      {
        key: 'governance.candidateOrigins',
        from: '["background","import"]',
        to: '["background"]',
        weakens: 'writes from import no longer always go to review',
      },
      { key: 'search.maxResults', from: '6', to: '9' },
      { key: 'scan.injection.threshold', from: 'null', to: '0.9', weakens: expect.any(String) },
    ]);
    // Lowering the threshold below the calibrated one reports more: not a weakening.
    const strict = structuredClone(base);
    strict.scan.injection.threshold = 0.3;
    expect(settingsChanges(base, strict, 0.55)[0].weakens).toBeUndefined();
  });
});

describe('settingRange', () => {
  it('points at the key, in block and flow style; a removed key at its section', () => {
    const text = 'version: 1\ngovernance:\n  autoFloor: 0.5\nscan: { injection: { threshold: 1 } }\n';
    expect(settingRange(text, 'governance.autoFloor')).toEqual({
      start: { line: 2, character: 2 },
      end: { line: 2, character: 11 },
    });
    expect(settingRange(text, 'scan.injection.threshold').start).toEqual({ line: 3, character: 21 });
    expect(settingRange(text, 'governance.commitMode').start).toEqual({ line: 1, character: 0 });
    expect(settingRange('', 'mainBranch').start).toEqual({ line: 0, character: 0 });
    expect(parseConfig(text).config.governance.autoFloor).toBe(0.5);
  });
});
