// The VS Code extension without VS Code: the manifest declares what the issue asks (two tools with
// their #references, off by default), the source registers exactly those tools, the tool payloads
// pass the store's own validation, and (once its devDependencies are installed) it packages.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  retrievalMarkdown,
  storeSentence,
  toSearchRequest,
  toStorePayload,
} from '../../clients/vscode/src/tools.js';
import { validateStorePayload } from '../../server/src/core/payload.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const EXT = path.join(REPO, 'clients/vscode');
const pkg = JSON.parse(readFileSync(path.join(EXT, 'package.json'), 'utf8'));
const source = readFileSync(path.join(EXT, 'src/extension.ts'), 'utf8');

interface Tool {
  name: string;
  toolReferenceName: string;
  canBeReferencedInPrompt: boolean;
  when?: string;
  modelDescription: string;
  inputSchema: { type: string; properties: Record<string, { type: string }>; required: string[] };
}
const tools: Tool[] = pkg.contributes.languageModelTools;
const tool = (name: string) => tools.find((t) => t.name === name)!;

describe('VS Code extension manifest', () => {
  it('is the cairn-memory extension for VS Code 1.95+, started on markdown or in a store', () => {
    expect(pkg).toMatchObject({
      name: 'cairn-memory',
      publisher: 'cairn',
      engines: { vscode: '^1.95.0' },
      main: 'out/extension.js',
    });
    expect(pkg.activationEvents).toEqual(['onLanguage:markdown', 'workspaceContains:**/cairn.yaml']);
    expect(pkg.contributes.configuration.properties['cairn.path'].default).toBe('cairn');
    expect(pkg.contributes.configuration.properties['cairn.store'].type).toBe('string');
  });

  it('declares the store and retrieve tools as #cairnStore and #cairnRetrieve, off until enabled', () => {
    expect(tools.map((t) => [t.name, t.toolReferenceName, t.canBeReferencedInPrompt])).toEqual([
      ['cairn_store', 'cairnStore', true],
      ['cairn_retrieve', 'cairnRetrieve', true],
    ]);
    const enabled = pkg.contributes.configuration.properties['cairn.agentTools.enabled'];
    expect(enabled).toMatchObject({ type: 'boolean', default: false });
    for (const t of tools) expect(t.when).toBe('config.cairn.agentTools.enabled');
    expect(tool('cairn_store').inputSchema.required).toEqual(['topic', 'context']);
    expect(Object.keys(tool('cairn_store').inputSchema.properties)).toEqual([
      'topic',
      'context',
      'decisions',
      'rationale',
      'openQuestions',
      'nextSteps',
      'references',
      'metadata',
      'agentName',
    ]);
    expect(tool('cairn_retrieve').inputSchema.required).toEqual(['query']);
    expect(Object.keys(tool('cairn_retrieve').inputSchema.properties)).toEqual([
      'query',
      'maxResults',
      'maxTokens',
      'includeSuperseded',
      'halfLifeDays',
      'contextHints',
    ]);
  });

  it('registers exactly the declared tools, over the custom requests, logging to "Cairn Agent Activity"', () => {
    expect(source).toContain("ACTIVITY_CHANNEL = 'Cairn Agent Activity'");
    expect(source).toContain('createOutputChannel(ACTIVITY_CHANNEL)');
    const registered = [...source.matchAll(/name: '(cairn_\w+)'/g)].map((m) => m[1]);
    expect(registered).toEqual(tools.map((t) => t.name));
    expect(source).toContain("sendRequest<StoreResult>('cairn/store'");
    expect(source).toContain("sendRequest<SearchResult>('cairn/search'");
    expect(source).toContain("'cairn.agentTools.enabled'"); // checked at invoke time as well
  });

  it('turns a full cairn_store input into a payload the store accepts', () => {
    const input = {
      topic: 'Use Redis for sessions',
      context: 'We chose Redis over Memcached because sessions need persistence across restarts.',
      decisions: ['Redis 7'],
      rationale: ['persistence'],
      openQuestions: ['cluster mode?'],
      nextSteps: ['load test'],
      references: ['[[caching]]'],
      metadata: { plan_id: 'plan-7', status: 'Active' },
      agentName: 'copilot',
    };
    expect(Object.keys(input)).toEqual(Object.keys(tool('cairn_store').inputSchema.properties));
    const payload = validateStorePayload(toStorePayload(input), { channel: 'agent' });
    expect(payload).toMatchObject({
      origin: 'conversation',
      agentName: 'copilot',
      metadata: { planId: 'plan-7', status: 'Active' },
    });
    expect(() =>
      validateStorePayload(toStorePayload({ topic: 't', context: 'c' }), { channel: 'agent' }),
    ).not.toThrow();
  });

  it('builds the search request and the texts the model reads', () => {
    expect(
      toSearchRequest({ query: 'session cache', contextHints: ['redis.ts'], maxResults: 5 }),
    ).toMatchObject({
      query: 'session cache redis.ts',
      limit: 5,
    });
    const md = retrievalMarkdown({
      results: [
        { id: 'redis', title: 'Use Redis', status: 'active', path: 'memories/redis.md', score: 0.8123 },
      ],
    });
    expect(md).toMatch(/^# Retrieved Memories \(1 results\)\n\n## Use Redis\n/);
    expect(md).toContain('- id: redis (active)');
    const staged = {
      staged: true,
      dropped: false,
      unchanged: false,
      reason: 'origin background',
      metadata: { topic_id: 'x', status: 'candidate', branch: 'candidate/x', commit: 'abcdef123' },
    };
    expect(storeSentence(staged)).toBe(
      'Stored "x" as a CANDIDATE awaiting review on branch candidate/x (commit abcdef1): origin background. Tell the user; it is not retrieved until a person accepts it.',
    );
  });
});

// Packaging needs @types/vscode, vscode-languageclient and rolldown resolvable from the repository.
const resolve = createRequire(path.join(EXT, 'package.json')).resolve;
const missing = ['@types/vscode/package.json', 'vscode-languageclient/node', 'rolldown'].filter((m) => {
  try {
    resolve(m);
    return false;
  } catch {
    return true;
  }
});
if (missing.length)
  console.warn(`skipping the VS Code packaging check: not installed: ${missing.join(', ')}`);

describe.skipIf(missing.length > 0)('VS Code extension packaging (scripts/check-package.mjs)', () => {
  it('type-checks, bundles and writes a .vsix with the standard layout', () => {
    const out = execFileSync(process.execPath, [path.join(EXT, 'scripts/check-package.mjs')], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(out).toContain('manifest ok, tsc ok, bundle ok');
    const vsix = path.join(EXT, 'out', `${pkg.name}-${pkg.version}.vsix`);
    expect(existsSync(vsix)).toBe(true);
    expect(zipNames(readFileSync(vsix))).toEqual([
      'extension.vsixmanifest',
      '[Content_Types].xml',
      'extension/package.json',
      'extension/out/extension.js',
      'extension/readme.md',
    ]);
  });
});

/** Entry names from a zip's central directory (the end record is the last 22 bytes: no comment). */
function zipNames(zip: Buffer): string[] {
  const end = zip.length - 22;
  let at = zip.readUInt32LE(end + 16);
  const names: string[] = [];
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    const nameLength = zip.readUInt16LE(at + 28);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return names;
}
