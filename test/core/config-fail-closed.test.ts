// cairn.yaml's governance fails closed: a file that is not YAML, or a governance value that is
// wrong ("commitMode: Manual"), used to fall back to the defaults, so an agent's write that the
// person meant to be reviewed became active without a word. Now every agent write is a candidate
// until the file is fixed, and the write says why; a person's writes and the other settings are
// unaffected.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, parseConfig } from '../../server/src/core/config.js';
import { routeWrite } from '../../server/src/core/policy.js';

const agentWrite = (text: string) =>
  routeWrite({
    origin: 'conversation',
    confidence: 0.99,
    flaggedBy: [],
    governance: parseConfig(text).config.governance,
  });

describe('cairn.yaml governance fails closed', () => {
  // Fails before: each of these routed a confident agent write to main.
  it.each([
    ['a wrong commitMode', 'version: 1\ngovernance:\n  commitMode: Manual\n'],
    ['a wrong autoFloor', 'version: 1\ngovernance:\n  commitMode: selective\n  autoFloor: "0.9x"\n'],
    ['wrong candidateOrigins', 'version: 1\ngovernance:\n  candidateOrigins: [conversation, chats]\n'],
    ['governance that is not a mapping', 'version: 1\ngovernance: manual\n'],
    ['a YAML syntax error', 'version: 1\ngovernance:\n  commitMode: manual\nbroken: [\n'],
    ['a file that is not a mapping', '- governance\n- manual\n'],
  ])('%s: every agent write is a candidate, saying why', (_what, text) => {
    const { config, problems } = parseConfig(text);
    expect(problems.length).toBeGreaterThan(0);
    expect(config.governance.commitMode).toBe('manual');
    const route = agentWrite(text);
    expect(route.route).toBe('candidate');
    expect(route.reason).toMatch(
      /cairn.yaml's governance cannot be read as written \(.+\): every agent write is reviewed until it is fixed/,
    );
    // A person's own write is not an agent's: it is routed as ever.
    expect(routeWrite({ origin: 'human', flaggedBy: [], governance: config.governance }).route).toBe(
      'active',
    );
  });

  it('a wrong value outside governance keeps its default and leaves governance alone', () => {
    const { config, problems } = parseConfig('version: 1\nsearch:\n  maxResults: lots\n');
    expect(problems.map((p) => p.message)).toEqual([
      `cairn.yaml: search.maxResults must be a positive number; using the default ${DEFAULT_CONFIG.search.maxResults}`,
    ]);
    expect(config.governance).toEqual(DEFAULT_CONFIG.governance);
    expect(agentWrite('version: 1\nsearch:\n  maxResults: lots\n').route).toBe('active');
  });

  // Any text at all: a governance problem (or no readable file) never lets an agent write through.
  it('property: a confident agent write is active only when governance was read as written', () => {
    const piece = fc.constantFrom(
      'version: 1\n',
      'governance:\n',
      '  commitMode: selective\n',
      '  commitMode: aggressive\n',
      '  commitMode: Manual\n',
      '  autoFloor: 0.5\n',
      '  reviewFloor: 0.9\n',
      '  autoFloor: high\n',
      '  candidateOrigins: [background]\n',
      '  candidateOrigins: nope\n',
      'search:\n  maxResults: 3\n',
      'broken: [\n',
      '  - x\n',
      ': :\n',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join('');
        const { config, problems } = parseConfig(text);
        const governanceProblem = problems.some(
          (p) =>
            p.code === 'config-yaml-syntax' ||
            /^cairn.yaml: governance\.\w+ must be|governance must be a mapping|cairn.yaml must be a mapping/.test(
              p.message,
            ),
        );
        if (governanceProblem) expect(agentWrite(text).route).toBe('candidate');
        else expect(config.governance.unreadable).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
