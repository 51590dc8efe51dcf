// The layer walls are lint rules (eslint.config.js). These tests plant a forbidden import in a file
// of each layer, in memory, and check that the project's own lint configuration refuses it: a wall
// that a refactor quietly drops would otherwise go unnoticed until the layers grew together again.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function lintMessages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId}: ${m.message}`);
}

const use = (name: string) => `\nexport const used = ${name};\n`;

describe('architecture walls', () => {
  it('a front end may not reach past ops/ into the store adapter', async () => {
    const messages = await lintMessages(
      'server/src/lsp/planted.ts',
      `import { openStore } from '../store/store.js';${use('openStore')}`,
    );
    expect(messages.join('\n')).toMatch(/Front ends import only ops\/ and core\//);
  });

  it('a front end may not import the search adapter', async () => {
    const messages = await lintMessages(
      'server/src/mcp/planted.ts',
      `import { x } from '../search/embedder.js';${use('x')}`,
    );
    expect(messages.join('\n')).toMatch(/Front ends import only ops\/ and core\//);
  });

  it('one front end may not import another', async () => {
    const messages = await lintMessages(
      'server/src/cli/planted.ts',
      `import { x } from '../lsp/server.js';${use('x')}`,
    );
    expect(messages.join('\n')).toMatch(/One front end never imports another/);
  });

  it('an adapter may not import an operation or a front end', async () => {
    for (const [file, from] of [
      ['server/src/store/planted.ts', '../ops/search.js'],
      ['server/src/search/planted.ts', '../mcp/server.js'],
      ['server/src/store/git/planted.ts', '../../compose.js'],
    ]) {
      const messages = await lintMessages(file, `import { x } from '${from}';${use('x')}`);
      expect(messages.join('\n'), `${file} importing ${from}`).toMatch(/store\/ and search\/ are adapters/);
    }
  });

  it('the core may not do I/O', async () => {
    const messages = await lintMessages(
      'server/src/core/planted.ts',
      `import { readFileSync } from 'node:fs';${use('readFileSync')}`,
    );
    expect(messages.join('\n')).toMatch(/core does no I\/O/);
  });

  it('the review page server is a front end: no adapters; the page never uses innerHTML', async () => {
    const server = await lintMessages(
      'server/src/web/planted.ts',
      `import { openStore } from '../store/store.js';${use('openStore')}`,
    );
    expect(server.join('\n')).toMatch(/Front ends import only ops\/ and core\//);
    const page = await lintMessages(
      'web/src/planted.ts',
      `export function f(el: Element, t: string) { el.innerHTML = t; }\n`,
    );
    expect(page.join('\n')).toMatch(/memory text must stay text/);
  });

  it('a source file may not grow past 500 lines', async () => {
    const body = Array.from({ length: 520 }, (_, i) => `export const v${i} = ${i};`).join('\n');
    const messages = await lintMessages('server/src/ops/planted.ts', body);
    expect(messages.join('\n')).toMatch(/max-lines/);
  });

  it('allowed imports pass: a front end importing ops/ and core/', async () => {
    const messages = await lintMessages(
      'server/src/lsp/planted.ts',
      `import { a } from '../ops/search.js';\nimport { b } from '../core/errors.js';\nimport { c } from '../core/search/tokenize.js';${use('[a, b, c]')}`,
    );
    expect(messages).toEqual([]);
  });
});
