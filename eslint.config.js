// Lint rules that keep the architecture honest: the core does no I/O and speaks no protocol.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioAndProtocols = [
  {
    // node:crypto stays allowed: hashing is computation, not I/O.
    group: [
      'node:fs',
      'node:fs/*',
      'fs',
      'fs/*',
      'node:child_process',
      'child_process',
      'node:net',
      'node:http',
      'node:https',
      'node:os',
      'os',
      'node:worker_threads',
      'node:process',
      'proper-lockfile',
    ],
    message: 'server/src/core does no I/O: put it in an adapter (server/src/store) and pass data in.',
  },
  {
    group: ['isomorphic-git', 'isomorphic-git/*'],
    message: 'server/src/core knows no git: use server/src/store/git.',
  },
  {
    group: ['vscode-languageserver*', '@modelcontextprotocol/*'],
    message: 'server/src/core speaks no protocol.',
  },
  {
    group: ['@huggingface/*', 'onnxruntime-*'],
    message: 'server/src/core loads no models: use server/src/search/embedder.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'bench/out/**',
      'node_modules/**',
      'clients/**/out/**',
      'clients/**/node_modules/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
        queueMicrotask: 'readonly',
        structuredClone: 'readonly',
        WebAssembly: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['server/src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ioAndProtocols }] },
  },
  {
    // Front ends speak a protocol and call operations: they never reach past ops/ into the adapters.
    files: [
      'server/src/cli/**/*.ts',
      'server/src/lsp/**/*.ts',
      'server/src/mcp/**/*.ts',
      'server/src/web/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // The adapters at server/src/store and server/src/search (not core/search, the pure ranking).
              regex: '^(\\.\\./)+(store|search)/',
              message: 'Front ends import only ops/ and core/: add or use an operation in server/src/ops.',
            },
            {
              regex: '^(\\.\\./)+(cli|lsp|mcp|web)/',
              message: 'One front end never imports another: share it through ops/ or core/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Adapters serve operations; they never call back up into them or into a front end.
    files: ['server/src/store/**/*.ts', 'server/src/search/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/ops/*', '**/cli/*', '**/lsp/*', '**/mcp/*', '**/main.js', '**/compose.js'],
              message: 'store/ and search/ are adapters: they never import ops/, a front end or the root.',
            },
          ],
        },
      ],
    },
  },
  {
    // The review page runs in a browser (typescript-eslint leaves undefined names to tsc): memory text
    // never reaches innerHTML.
    files: ['web/src/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Build nodes with dom.ts h(): memory text must stay text.' },
        { property: 'outerHTML', message: 'Build nodes with dom.ts h(): memory text must stay text.' },
        {
          property: 'insertAdjacentHTML',
          message: 'Build nodes with dom.ts h(): memory text must stay text.',
        },
      ],
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['server/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: true, skipComments: true }],
      // Node's recursive mkdir never returns for a path under /proc or a dangling link (make-dir.ts).
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.name=/^mkdir(Sync)?$/] Property[key.name="recursive"], ' +
            'CallExpression[callee.property.name=/^mkdir(Sync)?$/] Property[key.name="recursive"]',
          message: 'Use makeDir/makeDirSync (store/make-dir.ts): recursive mkdir can loop forever.',
        },
      ],
    },
  },
);
