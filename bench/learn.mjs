// `cairn learn` on a labelled sample: how many learned memories a reviewer would keep (precision),
// how many duplicates were skipped, and the time to learn from 10,000 messages, through the built CLI.
// The sample is generated from hand-written, labelled user utterances (KEEP: a reviewer keeps it;
// TRAP: trigger words a rule could take for a durable statement; CHATTER: ordinary requests),
// spread over Claude Code session files with assistant replies and tool traffic in between.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, rng } from './lib.mjs';

const CAIRN = path.resolve(import.meta.dirname, '../bin/cairn.js');
const MESSAGES = Number(process.env.LEARN_MESSAGES ?? 10_000);

const KEEP = [
  'Remember that the staging database is reset every Sunday night.',
  'We decided to use Postgres 16 for the ledger because we need serializable transactions.',
  'From now on, every migration needs a down script.',
  'I always want tests written with vitest, not jest.',
  'Remember that releases are cut on Tuesdays.',
  'We decided to store money as integer cents.',
  'I prefer short pull requests under 300 lines.',
  'By convention we pin every GitHub action to a commit SHA.',
  'Going forward, feature flags live in the flags service, not in env vars.',
  'Remember that the payments sandbox rate-limits at 10 requests per second.',
  'We chose pnpm over npm for the monorepo because of disk space.',
  'Never deploy on Fridays after 3pm.',
  'Always run the linter before pushing.',
  'The web client is written in TypeScript.',
  'The ledger service runs on Kubernetes.',
  'We agreed that API errors return problem+json bodies.',
  'Remember that the on-call rotation changes every Monday at 9am.',
  'I like to keep commits small and focused.',
  'From now on, secrets are read from Vault, never from files.',
  'We went with OpenTelemetry for tracing.',
];
const TRAP = [
  'We decided to take a break, back in ten minutes.',
  'Never mind, it works now.',
  'Always the same flaky test, ugh.',
  'I think we decided something about caching last week but I am not sure.',
  'Remember that thing I told you yesterday?',
  'Note that this is just a quick experiment.',
  'We chose the wrong branch, switch back.',
  'I prefer not to answer that right now.',
];
// Written after the rules were tuned on the sets above, and run once: the honest figure.
const HELD_OUT_KEEP = [
  'Remember that the analytics job runs at 2am UTC.',
  'We decided to drop support for Node 18.',
  'From now on, PR titles follow conventional commits.',
  'I always want error messages to say how to fix the problem.',
  'The billing service depends on Stripe.',
];
const HELD_OUT_TRAP = [
  'Never again will I touch that regex, haha.',
  'Always something with this CI.',
  'We decided to call it a day.',
  'Remember to drink water.',
  'I prefer the first option you showed, go with it.',
  'We agreed to meet at 3.',
];
// Session 9, written (and committed) before the rules learned to tell casual sentences: what a
// developer says in passing that has the shape of a rule ("I always forget ...", "We decided to
// grab lunch"), beside durable statements, several of which name no tool. LEARN_HELD_OUT=casual.
const CASUAL_KEEP = [
  'Remember that the QA team signs off on every release candidate.',
  'We decided to keep the public API backwards compatible until v3.',
  'From now on, all new endpoints need rate limiting.',
  'I always want the changelog updated in the same PR.',
  'We chose Redis for the job queue.',
  'Never commit generated files to the repo.',
  'Always squash-merge feature branches.',
  'I prefer named exports over default exports.',
  'By convention, database tables are plural and snake_case.',
  'Going forward, design reviews happen on Thursdays.',
  'Remember that customer data never leaves the EU region.',
  'We agreed to answer support tickets within one business day.',
  'I like to see a failing test before a bug fix.',
  'We went with Tailwind for the marketing site.',
  'The mobile app is built with React Native.',
  'Remember that Dana owns the billing code.',
  'We decided that interns do not get production access.',
  'Always write commit messages in the imperative mood.',
  'From now on, every incident gets a written postmortem.',
  'I prefer explicit return types on exported functions.',
];
const CASUAL_TRAP = [
  'I always forget my badge at home, ugh.',
  'We decided to grab lunch before the standup.',
  'I prefer coffee over tea honestly.',
  'From now on I am going to stop complaining about the CI lol.',
  'Never mind, the build passed.',
  'Remember that the meeting got moved, thanks.',
  'We chose pizza for the team dinner.',
  'I like to listen to music while coding.',
  'Always happy to help, thanks!',
  'We agreed to disagree on tabs versus spaces, haha.',
  'I never get these regexes right on the first try.',
  'We went with the blue slides for the demo.',
  'Remember that joke about the intern and the production database?',
  'Never seen this error before, weird.',
  'I always end up rewriting this function.',
  'We decided to celebrate the launch on Friday.',
  'Going forward, I will try to be less grumpy in code reviews.',
  'I prefer this version, looks cleaner.',
  'By the way, we went with my suggestion in the end.',
  'I always mess up the rebase, sorry.',
];
const HELD_OUT = process.env.LEARN_HELD_OUT;
if (HELD_OUT === '1') {
  KEEP.splice(0, KEEP.length, ...HELD_OUT_KEEP);
  TRAP.splice(0, TRAP.length, ...HELD_OUT_TRAP);
} else if (HELD_OUT === 'casual') {
  KEEP.splice(0, KEEP.length, ...CASUAL_KEEP);
  TRAP.splice(0, TRAP.length, ...CASUAL_TRAP);
}
const CHATTER = [
  'Can you run the tests again?',
  'Thanks, that looks good.',
  'Please rename this variable to something clearer.',
  'Why is the build failing on CI?',
  'Show me the diff for the migration.',
  'Ok, continue.',
  'Let us look at the payment handler next.',
  'Fix the type error in ledger.ts please.',
];

const random = rng(11);
const pick = (list) => list[Math.floor(random() * list.length)];

function session(n, count) {
  const rows = [];
  let i = 0;
  const push = (type, content, extra = {}) =>
    rows.push(
      JSON.stringify({
        type,
        uuid: `s${n}-m${i++}`,
        sessionId: `s${n}`,
        message: { role: type, content },
        ...extra,
      }),
    );
  while (i < count) {
    const r = random();
    const said = r < 0.15 ? pick(KEEP) : r < 0.25 ? pick(TRAP) : pick(CHATTER);
    push('user', said);
    push('assistant', [
      { type: 'text', text: 'On it.' },
      { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'npm test' } },
    ]);
    push('user', [
      { type: 'tool_result', tool_use_id: `t${i}`, content: 'Remember that all tests passed. 42 passed.' },
    ]);
    push('assistant', 'Done: the tests pass.');
  }
  return rows.join('\n') + '\n';
}

const work = mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-learn-'));
try {
  const store = path.join(work, 'store');
  execFileSync(process.execPath, [CAIRN, 'init', store], { stdio: 'ignore' });
  const files = [];
  const perSession = 200;
  for (let n = 0; n * perSession < MESSAGES; n++) {
    const file = path.join(work, `session-${n}.jsonl`);
    writeFileSync(file, session(n, Math.min(perSession, MESSAGES - n * perSession)));
    files.push(file);
  }
  const t0 = performance.now();
  const out = execFileSync(process.execPath, [CAIRN, 'learn', ...files, '--json', '--store', store], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const seconds = (performance.now() - t0) / 1000;
  const r = JSON.parse(out);
  const learned = r.proposals.filter((p) => p.outcome === 'active' || p.outcome === 'candidate');
  // Learning drops lead-ins ("Remember that ..."): a learned text is a KEEP statement's ending.
  const norm = (t) =>
    t
      .toLowerCase()
      .replace(/[^a-z0-9 ]+/g, '')
      .trim();
  const isKeep = (p) => KEEP.some((k) => norm(k).endsWith(norm(p.text)));
  const kept = learned.filter(isKeep);
  const t1 = performance.now();
  const again = JSON.parse(
    execFileSync(process.execPath, [CAIRN, 'learn', ...files, '--json', '--store', store], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    }),
  );
  const secondRun = (performance.now() - t1) / 1000;
  console.log(`machine: ${machine()}`);
  console.log(
    `sample: ${r.messages.read} messages in ${files.length} Claude Code session files, ${r.messages.background} background/tool`,
  );
  console.log(
    `learned: ${learned.length} memories (${r.counts.active} active, ${r.counts.candidate} candidates)`,
  );
  console.log(
    `precision: ${kept.length}/${learned.length} = ${(kept.length / Math.max(1, learned.length)).toFixed(3)} (a reviewer keeps the KEEP statements only)`,
  );
  const active = learned.filter((p) => p.outcome === 'active');
  console.log(
    `active precision: ${active.filter(isKeep).length}/${active.length} (what reaches agents without a review); ` +
      `KEEP statements active: ${new Set(active.filter(isKeep).map((p) => p.text.toLowerCase())).size}/${KEEP.length}`,
  );
  console.log(
    `recall of distinct KEEP statements: ${new Set(kept.map((p) => p.text.toLowerCase())).size}/${KEEP.length}`,
  );
  console.log(
    `not kept: ${
      learned
        .filter((p) => !isKeep(p))
        .map((p) => JSON.stringify(p.text))
        .join(', ') || 'none'
    }`,
  );
  console.log(`duplicates skipped: ${r.counts.duplicate}`);
  console.log(
    `time to learn from ${r.messages.read} messages: ${seconds.toFixed(2)} s; second run (all watermarked): ${secondRun.toFixed(2)} s, ${again.proposals.length} new`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
