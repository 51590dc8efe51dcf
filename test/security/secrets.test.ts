// Issue 8 item 5: a detected secret never reaches .git/objects or any file in the store. Every write
// path (CLI, MCP, language server) is driven through its real front end, and after each one every
// git object (`git cat-file --batch-all-objects --batch`) and every file under the store is searched
// for the credential's value.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, git, removeDir, tempDir } from '../helpers/store.js';
import { buildDist, call, connect, type Connected } from '../mcp/helpers.js';
import { startClient, type TestClient } from '../lsp/lsp-helper.js';

// Shaped like real credentials (and not like documentation placeholders), each written once.
let n = 0;
const awsKey = () => `AKIAQ7XWZ3J4K5L6M${String(100 + n++).slice(-3)}`;
const githubToken = () => `ghp_R8fT2kLm9QwZx4Vb7Nc1Hy6Jp3Sd5Ga0Ue${String(10 + n++).slice(-2)}`;

/** Every place a secret could persist: git objects (decompressed), and every file under the store. */
function leaks(dir: string, secret: string): string[] {
  const found: string[] = [];
  const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: dir,
    maxBuffer: 1 << 28,
  });
  if (objects.includes(secret)) found.push('.git/objects');
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && readFileSync(p).includes(secret)) found.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return found;
}

describe('no secret enters git or the store, on any write path', () => {
  let parent: string;
  let dir: string;
  let mcp: Connected;
  let lsp: TestClient;

  beforeAll(async () => {
    buildDist();
    parent = tempDir();
    dir = path.join(parent, 'mem');
    expect((await cairn(['init', dir])).code).toBe(0);
    mcp = await connect(dir);
    lsp = await startClient(dir);
  });
  afterAll(async () => {
    lsp?.close();
    await mcp?.close();
    removeDir(parent);
  });

  const run = (args: string[], input?: string) => cairn([...args, '--store', dir], { input });

  it('cairn store (flags and stdin JSON, topic included) redacts and says so', async () => {
    const key = awsKey();
    const r = await run([
      'store',
      '--topic',
      'Deploy credentials',
      '--context',
      `The CI user has key ${key}.`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/redacted/);
    expect(readFileSync(path.join(dir, 'memories/deploy-credentials.md'), 'utf8')).toContain(
      '[redacted: aws-access-key]',
    );
    expect(leaks(dir, key)).toEqual([]);

    const token = githubToken();
    const json = await run(
      ['store', '--json'],
      JSON.stringify({
        topic: `Token ${token}`,
        context: 'The release bot token.',
        decisions: [`use ${token} for releases`],
      }),
    );
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out.redacted.map((x: { field: string }) => x.field)).toEqual(['topic', 'decisions[0]']);
    expect(leaks(dir, token)).toEqual([]);
  });

  it('a credential said in a sentence, as agents write from chats, is redacted too', async () => {
    const password = `Pq8#rT2vLm9!${n++}`;
    const r = await run([
      'store',
      '--topic',
      'Staging database',
      '--context',
      `Ana says the staging DB password is ${password} until Friday.`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/redacted/);
    expect(readFileSync(path.join(dir, 'memories/staging-database.md'), 'utf8')).toContain(
      '[redacted: in-sentence]',
    );
    expect(leaks(dir, password)).toEqual([]);
  });

  // Found trying Cairn as an attacker (session 18): a soft hyphen or a zero-width space inside a
  // token hid it from every secret pattern, and it was committed with the invisible character in it.
  it('a token with an invisible character inside is redacted whole', async () => {
    for (const [i, invisible] of ['\u00ad', '\u200b', '\u034f'].entries()) {
      const token = githubToken();
      const hidden = token.slice(0, 10) + invisible + token.slice(10);
      const r = await run([
        'store',
        '--topic',
        `Deploy token ${i}`,
        '--context',
        `The deploy token is ${hidden} for now.`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const file = readFileSync(path.join(dir, `memories/deploy-token-${i}.md`), 'utf8');
      expect(file).toContain('[redacted: github-token]');
      expect(leaks(dir, hidden)).toEqual([]);
      expect(leaks(dir, token.slice(10))).toEqual([]);
    }
  });

  // Found trying Cairn as an attacker (session 18): a token wrapped onto a second line, or written
  // in fullwidth letters, was committed as written (test/scan/secret-views.test.ts has the rules').
  it('a token wrapped onto two lines or written in fullwidth letters is redacted whole', async () => {
    const wrapped = githubToken();
    const wide = githubToken();
    const fullwidth = [...wide].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');
    const r = await run([
      'store',
      '--topic',
      'Wrapped tokens',
      '--context',
      `The CI token is ${wrapped.slice(0, 18)}\n${wrapped.slice(18)} until Friday.\nThe bot uses ${fullwidth} too.`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const file = readFileSync(path.join(dir, 'memories/wrapped-tokens.md'), 'utf8');
    expect(file.match(/\[redacted: github-token\]/g)).toHaveLength(2);
    expect(file).toContain('until Friday.');
    for (const piece of [wrapped.slice(0, 18), wrapped.slice(18), fullwidth, fullwidth.slice(12)])
      expect(leaks(dir, piece), piece).toEqual([]);
  });

  // Found trying Cairn as an attacker (session 11): the access key id was redacted and the secret
  // access key said after it ("with secret ...") was committed in the clear.
  it('an AWS secret access key said after its key id is redacted with it', async () => {
    const key = awsKey();
    const secret = `q8Zr3vN1xK5mP0tY7wS2bL9cF6hJ4dG1eA3uR${String(100 + n++).slice(-3)}`;
    const r = await run([
      'store',
      '--topic',
      'Deploy user keys',
      '--context',
      `the key is ${key} with secret ${secret}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'memories/deploy-user-keys.md'), 'utf8')).toContain(
      'with secret [redacted: aws-secret-key]',
    );
    expect(leaks(dir, secret)).toEqual([]);
    expect(leaks(dir, key)).toEqual([]);
  });

  // Found trying Cairn as an attacker (session 12): 24 of 28 credential shapes were committed in
  // the clear: provider tokens without a rule, a Bearer header, a password given to a command, a
  // key right after its name with no "=" or "is".
  it('provider tokens, headers, command passwords and named keys are redacted', async () => {
    const tail = String(100 + n++).slice(-3);
    const secrets = [
      `SG.Qm7Lr2Xv9Tn4Bc8Wd1Yf6H.s3Jk5Mp0QaZr8Lk2Vn7Tb5Xm1Hc9Pd4Fs6Gj0Ry2${tail}`,
      `tZb9gl0AB3mjWtnqI3Kq8Zr3Lm9XvT2bNc7WdY${tail}`,
      `z0GBUL3NNtICd${tail}`,
      `ca5ec666be43d750fc4d69d4c1216${tail}`,
    ];
    const r = await run([
      'store',
      '--topic',
      'Service credentials',
      '--context',
      [
        `mail through ${secrets[0]}`,
        `curl -H "Authorization: Bearer ${secrets[1]}" https://api.internal`,
        `mysql -u root -p${secrets[2]} prod_db`,
        `twilio auth token ${secrets[3]} for SMS`,
      ].join('\n'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const file = readFileSync(path.join(dir, 'memories/service-credentials.md'), 'utf8');
    for (const code of ['sendgrid-key', 'authorization-header', 'command-password', 'named-value'])
      expect(file).toContain(`[redacted: ${code}]`);
    for (const secret of secrets) expect(leaks(dir, secret)).toEqual([]);
  });

  it('an update, correct, feedback note, forget reason and reject reason redact', async () => {
    const keys = [awsKey(), awsKey(), awsKey(), awsKey(), awsKey()];
    await run([
      'store',
      '--topic',
      'Cache policy',
      '--context',
      'Redis with a 30 minute TTL.',
      '--id',
      'cache',
    ]);
    expect(
      (
        await run([
          'store',
          '--topic',
          'Cache policy',
          '--context',
          `Redis, key ${keys[0]}.`,
          '--id',
          'cache',
        ])
      ).code,
    ).toBe(0);
    expect((await run(['correct', 'cache', `Redis; the admin key is ${keys[1]}`])).code).toBe(0);
    expect((await run(['feedback', 'cache', 'down', '--note', `leaked ${keys[2]}`])).code).toBe(0);
    const cand = await run(
      ['store', '--json'],
      JSON.stringify({ topic: 'Guess', context: 'A guess.', confidence: 0.6, agentName: 'bot' }),
    );
    expect(JSON.parse(cand.stdout).metadata.status).toBe('candidate');
    expect((await run(['reject', 'guess', '--why', `it contains ${keys[3]}`])).code).toBe(0);
    expect((await run(['forget', 'cache', '--why', `it had ${keys[4]}`])).code).toBe(0);
    for (const k of keys) expect(leaks(dir, k)).toEqual([]);
    expect(git(dir, 'log', '-1', '--format=%B', 'main')).toContain('[redacted: aws-access-key]');
  });

  it('cairn import redacts every line', async () => {
    const key = awsKey();
    const file = path.join(parent, 'import.jsonl');
    writeFileSync(file, JSON.stringify({ topic: 'Imported key', context: `key ${key}` }) + '\n');
    const r = await run(['import', file, '--format', 'jsonl']);
    expect(r.code).toBe(0);
    expect(leaks(dir, key)).toEqual([]);
  });

  it('MCP memory_store, memory_append, knowledge_graph and memory_manager redact', async () => {
    const keys = [awsKey(), awsKey(), awsKey(), awsKey(), awsKey()];
    const stored = await call(mcp.client, 'memory_store', {
      topic: 'Staging access',
      context: `Staging uses ${keys[0]} for the deploy user.`,
      confidence: 0.9,
    });
    expect(stored.isError).toBe(false);
    expect(stored.json.redacted).toEqual([{ field: 'context', code: 'secret/aws-access-key' }]);
    const appended = await call(mcp.client, 'memory_append', { content: `The deploy key is ${keys[1]}` });
    expect(appended.isError).toBe(false);
    const fact = await call(mcp.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'deploy-user',
      predicate: 'has-key',
      object: keys[2],
      confidence: 0.9,
    });
    expect(fact.json.redacted).toEqual([{ field: 'object', code: 'secret/aws-access-key' }]);
    const onMemory = await call(mcp.client, 'knowledge_graph', {
      operation: 'add',
      subject: 'staging',
      predicate: 'key',
      object: keys[3],
      memory_id: 'staging-access',
      confidence: 0.9,
    });
    expect(onMemory.isError).toBe(false);
    const item = await call(mcp.client, 'memory_manager', {
      operation: 'store',
      title: 'env dump',
      content: `AWS_ACCESS_KEY_ID=${keys[4]}\nPATH=/usr/bin\n`,
    });
    const promoted = await call(mcp.client, 'memory_manager', {
      operation: 'promote',
      memory_id: item.json.item.id,
      topic: 'Environment of the build',
    });
    expect(promoted.isError).toBe(false);
    for (const k of keys) expect(leaks(dir, k)).toEqual([]);
  });

  it('the language server store command redacts', async () => {
    const key = awsKey();
    const stored = (await lsp.conn.sendRequest('cairn/store', {
      topic: 'Editor stored key',
      context: `Stored from the editor with ${key}.`,
      confidence: 0.95,
    })) as { redacted: unknown[] };
    expect(stored.redacted).toHaveLength(1);
    expect(leaks(dir, key)).toEqual([]);
  });
});
