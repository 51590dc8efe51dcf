// Deterministic generator of memory-like texts for the near-duplicate benchmark and tests.
const WORDS = (
  'cache redis session token deploy staging production migration schema index query latency retry ' +
  'timeout queue worker cron backup restore replica shard partition lock mutex thread pool buffer ' +
  'stream parser lexer config flag rollout canary metric alert dashboard trace span log error ' +
  'warning review commit branch merge rebase release version tag changelog api endpoint handler ' +
  'router middleware auth oauth jwt cookie header payload webhook event bus topic consumer producer ' +
  'batch window snapshot compaction vacuum encoding utf8 unicode locale timezone date cost budget ' +
  'quota limit throttle circuit breaker fallback degrade health probe readiness liveness container ' +
  'image registry helm chart terraform module state drift plan apply secret vault rotate key ' +
  'we decided to use because the team agreed that after testing it was faster and simpler for ' +
  'the on-call engineers when incidents happen at night so we keep it documented here'
).split(' ');

/** Mulberry32: small seeded PRNG so every run generates the same corpus. */
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

/** A text of `length` characters or a little more, sentences of 6-14 vocabulary words. */
export function memoryText(random, length) {
  let out = '';
  while (out.length < length) {
    const n = 6 + Math.floor(random() * 9);
    const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]);
    out += words.join(' ').replace(/^./, (c) => c.toUpperCase()) + '. ';
  }
  return out.trim();
}

/** A copy of `text` with about `rate` of its words replaced or dropped: a hand-edited duplicate. */
export function mutate(random, text, rate) {
  return text
    .split(' ')
    .flatMap((w) => {
      const r = random();
      if (r < rate / 2) return [];
      if (r < rate) return [WORDS[Math.floor(random() * WORDS.length)]];
      return [w];
    })
    .join(' ');
}
