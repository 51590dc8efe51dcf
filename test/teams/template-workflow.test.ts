// A pull-request check that works on a fresh machine: `npm pack` gives a tarball that installs
// without dev dependencies and runs, and memory-template's workflow, run step by step the way a
// GitHub runner does (its shell steps with bash; `uses:` steps skipped and checkout emulated),
// installs that tarball and fails a pull request whose memory has an error, with the finding in
// cairn.sarif, and passes a clean one. Offline: npm installs from a loopback registry fed by npm's
// own cache (test/helpers/npm-registry.ts). `npm test` has built dist/ before this runs.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { npmContentCache, startLockfileRegistry, type LoopbackRegistry } from '../helpers/npm-registry.js';
import { REPO_ROOT, git, removeDir, tempDir, type RunResult } from '../helpers/store.js';
import { checkoutLikeActions, runSteps, type StepOutcome, type WorkflowStep } from '../helpers/workflow.js';

const WORKFLOW = path.join(REPO_ROOT, 'memory-template/.github/workflows/cairn-check.yml');
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};
const workflow = parse(readFileSync(WORKFLOW, 'utf8')) as {
  env: Record<string, string>;
  jobs: { check: { env?: Record<string, string>; steps: WorkflowStep[] } };
};
const steps = workflow.jobs.check.steps;
const installAt = steps.findIndex((s) => s.run?.includes('$CAIRN_PACKAGE'));

let tmp = '';
let registry: LoopbackRegistry;
let tarball = '';
let packed: { files: { path: string }[] };
let install: StepOutcome[] = [];
/** The environment of the workflow's steps: the runner's variables and the workflow's env. */
let stepEnv: NodeJS.ProcessEnv = {};
let origin = '';

/** This process's environment without what `npm test` adds (npm_config_*, npm_package_*). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

/** The installed `cairn` (from the temp global prefix), as a user runs it. */
function cairnInstalled(args: string[], opts: { cwd: string; input?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('cairn', args, { cwd: opts.cwd, env: stepEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

beforeAll(async () => {
  if (!existsSync(path.join(REPO_ROOT, 'dist/bundle/main.cjs')))
    throw new Error('dist/bundle is missing: run `npm run build` first (npm test does)');
  tmp = tempDir('cairn-pack-');
  // The build is done; --ignore-scripts skips the `prepare` build that `npm pack` runs for people.
  const [report] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], {
      cwd: REPO_ROOT,
      env: cleanEnv(),
      encoding: 'utf8',
    }),
  ) as { filename: string; files: { path: string }[] }[];
  packed = report;
  tarball = path.join(tmp, report.filename);
  registry = await startLockfileRegistry({
    lockfile: path.join(REPO_ROOT, 'package-lock.json'),
    npmCache: npmContentCache(REPO_ROOT),
  });
  const home = path.join(tmp, 'home');
  const prefix = path.join(tmp, 'prefix');
  mkdirSync(home);
  stepEnv = {
    ...cleanEnv(),
    HOME: home,
    PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}`,
    GIT_CONFIG_NOSYSTEM: '1',
    // A global install goes here (as setup-node's prefix on a runner), from the loopback registry.
    npm_config_prefix: prefix,
    npm_config_registry: registry.url,
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_BASE_REF: 'main',
    RUNNER_TEMP: path.join(tmp, 'runner-temp'),
    CAIRN_AUTHOR_NAME: 'Test Person',
    CAIRN_AUTHOR_EMAIL: 'test@example.com',
    ...workflow.env,
    ...workflow.jobs.check.env,
    // The one substitution: the packed tarball instead of the registry's cairn-memory.
    CAIRN_PACKAGE: tarball,
  };
  mkdirSync(stepEnv.RUNNER_TEMP!);
  // The steps up to and including "Install Cairn" (checkout and setup-node are `uses:` steps).
  install = await runSteps(steps.slice(0, installAt + 1), {
    cwd: tmp,
    env: stepEnv,
    scriptDir: path.join(tmp, 'scripts'),
  });

  // The team's store on a remote, made by the installed cairn.
  const seed = await cairnInstalled(['init', 'seed'], { cwd: tmp });
  if (seed.code !== 0) throw new Error(`cairn init failed: ${seed.stderr}`);
  origin = path.join(tmp, 'origin.git');
  git(tmp, 'clone', '-q', '--bare', 'seed', origin);
}, 300_000);

afterAll(async () => {
  await registry?.close();
  if (tmp) removeDir(tmp);
});

describe('npm pack', () => {
  it('ships the built bundle, the launcher, memory-template (with its gitignore) and the docs; no sources or maps', () => {
    const files = packed.files.map((f) => f.path);
    for (const f of [
      'bin/cairn.js',
      'dist/bundle/main.cjs',
      'dist/main.js',
      'memory-template/cairn.yaml',
      'memory-template/gitignore',
      'memory-template/.github/workflows/cairn-check.yml',
      'docs/teams.md',
      'package.json',
    ])
      expect(files).toContain(f);
    expect(files.filter((f) => /^(server|test|bench|clients|scripts)\/|\.map$/.test(f))).toEqual([]);
  });
});

describe('the tarball installed with `npm install --global` on a machine without Cairn', () => {
  it('installs through the workflow step, without dev dependencies, and `cairn --version` runs', () => {
    const last = install.at(-1)!;
    expect(last.result, last.stderr).toBe(0);
    expect(last.stdout.trim().split('\n').at(-1)).toBe(pkg.version);
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const installed = path.join(stepEnv.npm_config_prefix!, 'lib/node_modules/cairn-memory');
    const devOnly = Object.keys(pkg.devDependencies).filter((d) => lock.packages[`node_modules/${d}`]?.dev);
    expect(devOnly.length).toBeGreaterThan(5);
    expect(readdirSync(path.join(installed, 'node_modules')).length).toBeGreaterThan(100);
    expect(devOnly.filter((d) => existsSync(path.join(installed, 'node_modules', d)))).toEqual([]);
  });

  it('cairn init makes a store that git keeps clean: .cairn/ is ignored (npm drops files named .gitignore)', async () => {
    const dir = path.join(tmp, 'mine');
    expect((await cairnInstalled(['init', dir], { cwd: tmp })).code).toBe(0);
    expect(readFileSync(path.join(dir, '.gitignore'), 'utf8')).toContain('.cairn/');
    expect(existsSync(path.join(dir, 'gitignore'))).toBe(false);
    const stored = await cairnInstalled(
      [
        'store',
        '--topic',
        'Use Redis for sessions',
        '--context',
        'We chose Redis over Memcached for pub/sub.',
      ],
      { cwd: dir },
    );
    expect(stored.code, stored.stderr).toBe(0);
    const checked = await cairnInstalled(['check'], { cwd: dir });
    expect(checked.code, checked.stdout).toBe(0);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('cairn mcp answers an MCP client, and cairn lsp --stdio answers initialize', async () => {
    const dir = path.join(tmp, 'seed');
    const transport = new StdioClientTransport({
      command: 'cairn',
      args: ['mcp', '--store', dir],
      env: stepEnv as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'fresh-machine', version: '0.0.0' });
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('memory_search');
    await client.close();

    const lsp = spawn('cairn', ['lsp', '--stdio'], { cwd: dir, env: stepEnv });
    const conn = createMessageConnection(
      new StreamMessageReader(lsp.stdout),
      new StreamMessageWriter(lsp.stdin),
    );
    conn.listen();
    const init = (await conn.sendRequest('initialize', {
      processId: null,
      rootUri: pathToFileURL(dir).href,
      capabilities: {},
      workspaceFolders: null,
    })) as { capabilities: Record<string, unknown> };
    expect(init.capabilities).toHaveProperty('completionProvider');
    const exited = new Promise((resolve) => lsp.on('exit', resolve));
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    await exited;
    conn.dispose();
  });
});

/** An agent proposes a memory in a clone, it is pushed, and GitHub's PR merge ref is checked out. */
async function pullRequest(name: string, number: number, payload: object): Promise<string> {
  const dev = path.join(tmp, `dev-${name}`);
  git(tmp, 'clone', '-q', origin, dev);
  const stored = await cairnInstalled(['store', '--json'], { cwd: dev, input: JSON.stringify(payload) });
  const branch = (JSON.parse(stored.stdout) as { metadata: { branch: string } }).metadata.branch;
  expect(branch).toMatch(/^candidate\//);
  git(dev, 'push', '-q', 'origin', branch);
  git(dev, 'checkout', '-q', '--detach', 'main');
  git(dev, 'merge', '-q', '--no-ff', '-m', `Merge pull request #${number}`, branch);
  git(dev, 'push', '-q', 'origin', `HEAD:refs/pull/${number}/merge`);
  const workspace = path.join(tmp, `ws-${name}`);
  checkoutLikeActions(origin, workspace, `refs/pull/${number}/merge`);
  return workspace;
}

async function runCheckSteps(workspace: string) {
  const outcomes = await runSteps(steps.slice(installAt + 1), {
    cwd: workspace,
    env: { ...stepEnv, GITHUB_WORKSPACE: workspace },
    scriptDir: path.join(tmp, 'scripts'),
  });
  const byName = Object.fromEntries(outcomes.map((o) => [o.step, o]));
  return { outcomes, byName, failed: outcomes.some((o) => typeof o.result === 'number' && o.result !== 0) };
}

const usesSteps = steps.filter((s) => s.uses).map((s) => s.uses!.replace(/@.*/, ''));

// Fails before: the template installed `cairn-memory@0.1.0` from the registry, a name Cairn does
// not own (npm answers 404 today; whoever registers it would run code in every store's check).
describe("memory-template's workflow before CAIRN_PACKAGE is set", () => {
  it('fails at Install Cairn, saying to set it, and installs nothing', async () => {
    const tmp = tempDir('cairn-wf-unset-');
    try {
      const [install] = await runSteps([steps[installAt]], {
        cwd: tmp,
        env: { ...process.env, ...workflow.env, RUNNER_TEMP: tmp, npm_config_registry: 'http://127.0.0.1:9' },
        scriptDir: path.join(tmp, 'scripts'),
      });
      expect(install.result).toBe(1);
      expect(install.stdout).toContain(
        '::error::Set CAIRN_PACKAGE at the top of .github/workflows/cairn-check.yml',
      );
    } finally {
      removeDir(tmp);
    }
  });
});

describe(`memory-template's workflow, its shell steps run in a fresh checkout (uses: steps skipped: ${usesSteps.join(', ')})`, () => {
  it('sets Cairn source in one place, fetches all history, writes cairn.sarif and uploads it always', () => {
    // Empty: Cairn is not on the npm registry, and a package named like it there is someone else's.
    expect(workflow.env.CAIRN_PACKAGE).toBe('');
    expect(steps.filter((s) => s.run?.includes('CAIRN_PACKAGE'))).toHaveLength(1);
    expect(usesSteps).toEqual([
      'actions/checkout',
      'actions/setup-node',
      'github/codeql-action/upload-sarif',
    ]);
    const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout')) as {
      with?: { 'fetch-depth'?: number };
    };
    expect(checkout.with?.['fetch-depth']).toBe(0);
    const upload = steps.find((s) =>
      s.uses?.startsWith('github/codeql-action/upload-sarif'),
    ) as WorkflowStep & {
      with: { sarif_file: string };
    };
    expect(upload.with.sarif_file).toBe('cairn.sarif');
    expect(upload.if).toMatch(/always\(\)/);
    expect(steps.indexOf(upload)).toBe(steps.length - 1);
    // Shell steps take values from the environment, never from ${{ }} (nothing to substitute here).
    expect(steps.filter((s) => s.run?.includes('${{'))).toEqual([]);
  });

  it('a pull request whose memory has an error fails the job, with the finding in a valid cairn.sarif', async () => {
    const workspace = await pullRequest('broken', 1, {
      topic: 'Nightly finding about caches',
      context: 'The nightly job found that the cache layer is described in [[no-such-memory]].',
      origin: 'background',
      agentName: 'nightly-bot',
    });
    const { outcomes, byName, failed } = await runCheckSteps(workspace);
    expect(failed).toBe(true);
    expect(byName['Check the changed memories'].result).toBe(1);
    expect(outcomes.at(-1)!.result).toBe('skipped'); // the upload, which would run: if: always()
    const sarif = JSON.parse(readFileSync(path.join(workspace, 'cairn.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    const results = sarif.runs[0].results as {
      ruleId: string;
      level: string;
      locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
    }[];
    expect(
      results.map((r) => [r.ruleId, r.level, r.locations[0].physicalLocation.artifactLocation.uri]),
    ).toEqual([['ref/unknown', 'error', 'memories/nightly-finding-about-caches.md']]);
    expect(byName['Findings, readable in the log'].stdout).toContain(
      'memories/nightly-finding-about-caches.md:',
    );
  });

  it('a clean pull request passes, with an empty cairn.sarif', async () => {
    const workspace = await pullRequest('clean', 2, {
      topic: 'Session cache choice',
      context: 'Sessions are cached in Redis 7 with a 30 minute TTL; see [[cairn-store-conventions]].',
      origin: 'background',
      agentName: 'nightly-bot',
    });
    const { outcomes, failed } = await runCheckSteps(workspace);
    expect(failed, JSON.stringify(outcomes, null, 1)).toBe(false);
    const sarif = JSON.parse(readFileSync(path.join(workspace, 'cairn.sarif'), 'utf8'));
    expect(sarif.runs[0].results).toEqual([]);
  });
});
