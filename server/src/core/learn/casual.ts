// Telling a durable statement from chat that has its shape. "I always forget my badge" reads like
// a preference and "We decided to grab lunch" like a decision, and both became active memories
// that every later session was told. These tests say what a rule match alone cannot: the sentence
// is banter, about the speaker's own habits, about the conversation itself, or names nothing of
// the work. Pure.

/** Laughter, groans and emoticons: said in passing. Skipped. */
const BANTER = /\b(?:lol|lmao|rofl|ha(?:ha)+|he(?:he)+|ugh+|meh|omg)\b|!{2,}|(?:^|\s)[:;]-?[)(DP](?=\s|$)/i;

/** Politeness and asides that rarely sit in a rule somebody means to keep: such a sentence is reviewed. */
const ASIDE = /\b(?:sorry|thanks|thank you|weird|honestly|by the way|btw|tbh)\b/i;

/** Life outside the work: meals, drinks, celebrations, time off. Skipped. */
const SOCIAL =
  /\b(?:lunch|dinner|breakfast|brunch|coffee|tea|pizza|beers?|drinks|snacks?|party|celebrat\w*|birthday|vacation|holiday|weekend plans|music|movies?|games? night|call it a day|go home|head home|take a break)\b/i;

/**
 * What the speaker always or never manages, not what should be done: "I always forget ...",
 * "I never get these right", "I always end up ...". Skipped.
 */
const OWN_HABIT =
  /\b(?:i|we)\s+(?:always|never|usually|often|keep)\s+(?:forget|forgot|end\s+up|mess(?:\s+up)?|get|got|seem|manage|lose|lost|break|broke|feel|find\s+(?:myself|ourselves)|struggle|have\s+trouble|miss|screw)\b|^never\s+(?:seen|been|heard|had|thought|knew|mind)\b|^always\s+(?:happy|glad|fun|nice|good|great|a\s+pleasure)\b/i;

/**
 * About this conversation, not the project: "this version", "the first option you showed", "my
 * suggestion". Meaningless in a later session. Skipped.
 */
const THIS_CONVERSATION =
  /\b(?:this|that|these|those)\s+(?:one|ones|version|option|approach|way|idea|suggestion)\b|\bthe\s+(?:first|second|third|last|other|previous)\s+(?:one|option|version|approach|suggestion)\b|\b(?:my|your)\s+(?:suggestion|idea|option|proposal)\b|\byou\s+(?:showed|suggested|proposed|wrote)\b/i;

/** The speaker's own intention ("I'm going to", "I will try"): not a rule for anyone. Reviewed. */
const OWN_INTENTION = /\bi(?:'m|\s+am)\s+going\s+to\b|\bi(?:'ll|\s+will)\s+(?:try|attempt)\b/i;

/**
 * Words of software work. A statement that names none of them, and no code, version, tool or
 * other proper name, may still be worth keeping ("releases are cut on Tuesdays" names one), but is
 * not made active without a person's look.
 */
const WORK_WORD_LIST = String.raw`
api apps? application backend frontend branch\w* bugs? build\w* cache\w* ci cd cli client\w* cluster\w*
code\w* commit\w* config\w* containers? credentials? customers? data database\w* db debug\w* deploy\w*
dependenc\w* design docs? documentation endpoints? env environments? errors? exceptions? exports? features?
files? flags? folders? frameworks? functions? git hotfix\w* http\w* imports? incidents? infra\w* integers?
interfaces? issues? jobs? keys? librar\w+ lint\w* logs? logging merg\w* migrations? modules? monorepo on-call
packages? patch\w* pipelines? postmortems? pr prs production prod pull\s+requests? qa quer(?:y|ies) queues?
rate[-\s]limit\w* refactor\w* regions? releases? repos? repository requests? reviews? rollback\w* schemas?
scripts? sdk secrets? security servers? services? sprints? sql staging stack storage strings? support tables?
tags? tasks? tests? testing tickets? tokens? tooling types? ui units? urls? users? variables? versions?
workflows? yaml json pools? sizes? timeouts? limits? retr(?:y|ies) ports? memory cpu threads? connections?
latency batch\w* index\w* ttl cron schedul\w* threshold\w* metrics? alerts? monitor\w* dashboards? layout
css html components? styles? fonts? classes? methods? objects? arrays?
`;
const WORK_WORDS = new RegExp(String.raw`\b(?:${WORK_WORD_LIST.trim().split(/\s+/).join('|')})\b`, 'i');

const NOT_A_NAME =
  /^(?:I|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)$/;

/** Code, a path, a version, an acronym, a CamelCase or a proper name past the first word. */
function namesSomething(sentence: string): boolean {
  if (/`|\w\/\w|\w\.[a-z]{1,4}\b|\b\w+_\w+\b|\bv?\d+(?:\.\d+)+\b|\b[A-Z][A-Za-z]+ \d+\b/.test(sentence))
    return true;
  const words = sentence.match(/[A-Za-z][\w+-]*/g) ?? [];
  return words.some(
    (w, i) =>
      /^[A-Z]{2,6}s?$/.test(w) || // API, CI, PRs, UTC
      /[a-z][A-Z]/.test(w) || // TypeScript, OpenTelemetry
      (i > 0 && /^[A-Z][a-z]/.test(w) && !NOT_A_NAME.test(w)), // Postgres, Vault, Dana
  );
}

/**
 * Whether a sentence a rule matched is skipped (null: banter, life outside work, the speaker's own
 * habits, this conversation), kept for a person's review only (the reason), or kept ('').
 */
export function casualReview(sentence: string): string | null {
  if (BANTER.test(sentence) || SOCIAL.test(sentence) || OWN_HABIT.test(sentence)) return null;
  if (THIS_CONVERSATION.test(sentence)) return null;
  if (ASIDE.test(sentence)) return 'said in passing';
  if (OWN_INTENTION.test(sentence)) return "the speaker's own intention";
  return WORK_WORDS.test(sentence) || namesSomething(sentence) ? '' : 'names nothing of the work';
}
