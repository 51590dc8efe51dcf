// Shared helpers for the benchmark scripts.
import os from 'node:os';

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function summarize(ms) {
  const total = ms.reduce((a, b) => a + b, 0);
  return {
    n: ms.length,
    p50: +percentile(ms, 50).toFixed(2),
    p95: +percentile(ms, 95).toFixed(2),
    max: +Math.max(...ms).toFixed(2),
    perSecond: +((ms.length / total) * 1000).toFixed(1),
  };
}

export function machine() {
  return `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${os.loadavg()[0].toFixed(2)}`;
}

const WORDS = (
  'cache redis session deploy staging production database migration schema index query latency ' +
  'queue worker retry backoff timeout token auth oauth jwt refresh login user account billing ' +
  'invoice payment refund webhook event stream kafka topic partition consumer producer lint ' +
  'test flaky coverage build pipeline docker image kubernetes pod service ingress config secret ' +
  'vault rotate key certificate tls proxy gateway route handler middleware logging metrics trace ' +
  'alert dashboard oncall incident postmortem rollback feature flag experiment cohort frontend ' +
  'react component state hook render bundle webpack vite typescript eslint prettier monorepo ' +
  'package version release changelog semver api endpoint graphql rest pagination cursor filter'
).split(' ');

/** Deterministic pseudo-random text from a seed (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sentence(rand, n) {
  const words = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
  const s = words.join(' ');
  return s[0].toUpperCase() + s.slice(1) + '.';
}

/** A realistic memory file for generated stores. */
export function memoryFile(id, rand) {
  const title = sentence(rand, 5).replace(/\.$/, '');
  const body = Array.from({ length: 4 + Math.floor(rand() * 6) }, () =>
    sentence(rand, 10 + Math.floor(rand() * 12)),
  ).join(' ');
  return `---
id: ${id}
title: ${title}
kind: decision
created: 2026-01-01T00:00:00Z
updated: 2026-01-01T00:00:00Z
tags: [bench]
source:
  agent: bench
  origin: conversation
confidence: 0.9
---
${body}

## Decisions
- ${sentence(rand, 8)}
- ${sentence(rand, 8)}

## Rationale
- ${sentence(rand, 12)}
`;
}
