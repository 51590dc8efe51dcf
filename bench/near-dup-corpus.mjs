// Deterministic generator of memory-like texts for the near-duplicate benchmark and tests.
const TECH = (
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
const COMMON = (
  'the a an to of and in for on with is are was be it this that we they not but or as by from at ' +
  'should must can will when if then so because after before only also all any each more less'
).split(' ');
/** Long tail of identifiers (service names, files, versions), as real notes have. */
const IDENTIFIERS = TECH.flatMap((a, i) => [
  `${a}-${TECH[(i * 7 + 3) % TECH.length]}`,
  `${a}${TECH[(i * 11 + 5) % TECH.length].replace(/^./, (c) => c.toUpperCase())}`,
  `src/${a}/${TECH[(i * 13 + 1) % TECH.length]}.ts`,
  `v${i % 9}.${(i * 3) % 17}.${(i * 5) % 11}`,
  `${a.toUpperCase()}_${TECH[(i * 17 + 2) % TECH.length].toUpperCase()}`,
  `#${1000 + i * 37}`,
]);

/** Function words 35%, technical words 45%, identifiers 20%: a rough shape of engineering notes. */
function word(random) {
  const r = random();
  const list = r < 0.35 ? COMMON : r < 0.8 ? TECH : IDENTIFIERS;
  return list[Math.floor(random() * list.length)];
}

import { rng } from './lib.mjs';

export { rng };

/** A text of `length` characters or a little more, sentences of 6-14 vocabulary words. */
export function memoryText(random, length) {
  let out = '';
  while (out.length < length) {
    const n = 6 + Math.floor(random() * 9);
    const words = Array.from({ length: n }, () => word(random));
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
      if (r < rate) return [word(random)];
      return [w];
    })
    .join(' ');
}
