// Runs a GitHub Actions workflow's shell steps the way a runner does, on this machine: each `run:`
// script with `bash --noprofile --norc -eo pipefail` (the runner's `shell: bash`), the workflow's
// env plus the variables the runner sets, and `if: always()` honoured after a failure. Steps that
// use an action (`uses:`) cannot run here; they are reported as skipped, and the caller emulates
// the ones it needs (actions/checkout: see `checkoutLikeActions`).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { git } from './store.js';

export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  shell?: string;
}

export interface StepOutcome {
  step: string;
  /** 'skipped' for a `uses:` step, 'not run' after an earlier failure, else the exit code. */
  result: number | 'skipped' | 'not run';
  stdout: string;
  stderr: string;
}

export function stepName(step: WorkflowStep): string {
  return step.name ?? step.uses ?? step.run?.split('\n')[0] ?? '?';
}

function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv, scriptDir: string) {
  mkdirSync(scriptDir, { recursive: true });
  const file = path.join(scriptDir, `step-${Date.now()}-${Math.random().toString(16).slice(2)}.sh`);
  writeFileSync(file, script);
  // Asynchronous on purpose: a loopback server in this process (the npm registry) must keep serving.
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs the steps in order; stops running (except `if: always()` steps) after the first failure. */
export async function runSteps(
  steps: WorkflowStep[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; scriptDir: string },
): Promise<StepOutcome[]> {
  const out: StepOutcome[] = [];
  let failed = false;
  for (const step of steps) {
    const name = stepName(step);
    if (step.uses) {
      out.push({ step: name, result: 'skipped', stdout: '', stderr: '' });
      continue;
    }
    if (failed && !/\balways\(\)/.test(step.if ?? '')) {
      out.push({ step: name, result: 'not run', stdout: '', stderr: '' });
      continue;
    }
    const r = await runScript(step.run ?? '', opts.cwd, opts.env, opts.scriptDir);
    if (r.code !== 0) failed = true;
    out.push({ step: name, result: r.code, stdout: r.stdout, stderr: r.stderr });
  }
  return out;
}

/**
 * What actions/checkout@v4 with `fetch-depth: 0` does for a pull request: every branch of the
 * remote as `origin/*`, every tag, and the PR's merge commit checked out detached. No local
 * branch exists, as on a runner.
 */
export function checkoutLikeActions(remote: string, dir: string, mergeRef: string): void {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'remote', 'add', 'origin', remote);
  const pull = mergeRef.replace(/^refs\//, 'refs/remotes/');
  git(
    dir,
    'fetch',
    '-q',
    '--prune',
    '--no-recurse-submodules',
    'origin',
    '+refs/heads/*:refs/remotes/origin/*',
    '+refs/tags/*:refs/tags/*',
    `+${mergeRef}:${pull}`,
  );
  git(dir, 'checkout', '-q', '--force', pull);
}
