// Injection rules that look for phrases: instruction override, role hijack, prompt reveal, secrecy.
// Each pattern needs a phrase addressed to the model (a "previous instructions" object, a "you are
// now" identity, a "your system prompt" target), so ordinary prose about ignoring lint warnings,
// overriding configs or acting as a proxy does not match.
import type { NamedPattern, ScanRule } from './types.js';
import { findPatterns } from './text-utils.js';

const DISMISS = String.raw`(?:ignor(?:e|ing)|disregard(?:ing)?|forget(?:ting)?|abandon(?:ing)?|discard(?:ing)?|set\s+aside|put\s+aside|leave\s+behind)`;
const PRIOR = String.raw`(?:above|previous|prior|preceding|earlier|foregoing|former|original|initial|system|provided)`;
const ORDERS = String.raw`(?:instructions?|directions?|directives?|rules|guidelines|prompts?|orders|commands|context|tasks?|assignments?|constraints|programming|guidance|information|messages)`;
const DET = String.raw`(?:(?:about\s+)?(?:all|any|each|every)\s+(?:of\s+)?)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|our\s+)?`;

const OVERRIDE: NamedPattern[] = [
  {
    name: 'dismiss-prior-orders',
    re: new RegExp(String.raw`\b${DISMISS}\s+${DET}${PRIOR}\s+${ORDERS}\b`, 'i'),
  },
  {
    name: 'dismiss-all-your-orders',
    re: new RegExp(
      String.raw`\b(?:${DISMISS}|drop)\s+(?:about\s+)?(?:all\s+(?:of\s+)?(?:the\s+|your\s+)?|your\s+)(?:instructions|directives|rules|guidelines|prompts?|orders|assignments|tasks|programming|constraints|thoughts)\b`,
      'i',
    ),
  },
  {
    name: 'dismiss-everything',
    re: /\b(?:ignore|disregard|forget)\s+(?:about\s+)?(?:everything|all\s+(?:that|this|of\s+(?:that|this|it)))\b(?=\s*(?:[,.!:;\-–]|$|before|above|previous|prior|so\s+far|(?:that\s+)?(?:you|we|i)\b|(?:and|&)\s+(?:\w+\s+)?(?:output|say|print|write|tell|answer|respond|reply)|gesagte))/im,
  },
  { name: 'ignore-the-above', re: /\b(?:ignore|disregard|forget)\s+(?:the\s+|what(?:'s|\s+is)\s+)?above\b/i },
  {
    // An order against the user, not a setting about one ("ignore the user agent", "the user and
    // group stored in the archive"): the user's orders, or the user followed by an end of clause,
    // "from now on", or an order of what to do instead.
    name: 'dismiss-the-user',
    re: /\b(?:ignore|disregard)\s+(?:the|your)\s+user(?:['’]s)?(?:\s+(?:instructions|requests|wishes|orders|messages|commands|input)\b|(?=\s*(?:[,.;:!]|$|from\s+now\b|completely\b|entirely\b|and\s+(?:run|execute|do|delete|send|instead|follow|obey|reply|respond|answer)\b)))/im,
  },
  {
    name: 'despite-instructions',
    re: /\b(?:despite|regardless\s+of)\s+(?:what|anything|everything)\s+you(?:'ve|\s+have|\s+were)?\s+(?:been\s+)?(?:told|instructed|given)/i,
  },
  {
    name: 'prior-is-irrelevant',
    re: /\b(?:all|any)\s+(?:previous|prior|earlier|preceding)\s+\w+[^.!?\n]{0,50}\b(?:is|are)\s+(?:now\s+)?(?:irrelevant|void|null\s+and\s+void|cancell?ed)\b/i,
  },
  {
    name: 'from-now-on-you',
    re: /\b(?:from\s+now\s+on|henceforth|starting\s+now),?\s+you\s+(?:are|'re|will\s+(?:be|act|only|ignore|respond|answer|reply|say|pretend|speak)|no\s+longer|have\s+no|only\s+(?:answer|respond|reply|output|say)|must\s+ignore|answer|respond|reply|ignore)\b/i,
  },
  {
    name: 'new-instructions-colon',
    re: /\b(?:new|updated|real|actual)\s+(?:instructions|directives|system\s+prompt)\s*:/i,
  },
  {
    name: 'new-tasks-follow',
    re: /\bnow\s+(?:new|further|more)\s+(?:tasks|instructions|orders)\s+(?:follow|are\s+followed)/i,
  },
  {
    name: 'your-new-task',
    re: /\b(?:(?:focus|concentrate)\s+on\s+(?:your|the)\s+new\s+task|your\s+new\s+(?:task|instructions?)\s+(?:is|are)|start\s+over\s+with\s+a\s+new\s+task)\b/i,
  },
  {
    name: 'change-your-instructions',
    re: /\b(?:change|replace|update|overwrite)\s+your\s+(?:instructions|rules|programming|system\s+prompt)\b/i,
  },
  {
    name: 'your-instructions-are-now',
    re: /\byour\s+(?:new\s+)?(?:instructions|orders|rules)\s+are\s+now\b/i,
  },
  // RAG variant: tell the model to answer from anything but the context it was given.
  {
    name: 'override-grounding',
    re: /\b(?:do\s+not|don't|without)\s+(?:look(?:ing)?\s+(?:in|at)|us(?:e|ing)|consult(?:ing)?|read(?:ing)?)\s+(?:the\s+|any\s+)?(?:documents|articles|context|sources)\s+provided\b|\bnot\s+(?:by|from)\s+the\s+(?:articles|documents|provided\s+(?:context|documents))\b/i,
  },
  // German (the dataset's second language).
  {
    name: 'de-vergiss-alles',
    re: /\bvergiss\s+(?:(?:einfach|nun|jetzt|bitte)\s+)?(?:alles|alle\s+(?:vorherigen\s+|bisherigen\s+)?(?:Aufgaben|Aufträge|Anweisungen|Instruktionen|Angaben|Befehle|Regeln))/i,
  },
  {
    name: 'de-ignoriere-vorherige',
    re: /\bignorier(?:e|en|t)?\s+(?:(?:sie|du|bitte)\s+)?(?:alle\s+)?(?:die\s+)?(?:vorherigen|bisherigen|obigen|vorangehenden|vorangegangenen|vorigen|früheren)\s+(?:Anweisungen|Befehle|Instruktionen|Aufgaben|Regeln|Anordnungen|Ausführungen)/i,
  },
  {
    name: 'de-vorherige-ignorieren',
    re: /\b(?:vorherigen|bisherigen|obigen|vorangehenden|vorangegangenen)\s+(?:Ausführungen|Anweisungen|Instruktionen|Befehle|Aufgaben|Informationen|Angaben)\b[^.!?\n]{0,50}(?:ignorieren|vergessen|streichen|hinter\s+sich|irrelevant)/i,
  },
  {
    name: 'de-abweichend',
    re: /\babweichend\s+(?:zu|von)\s+(?:den\s+)?(?:vorherigen|bisherigen|obigen)\s+(?:Instruktionen|Anweisungen)/i,
  },
  {
    name: 'de-neue-anweisungen',
    re: /\b(?:nun|jetzt)\s+folgen\s+(?:neue|weitere)\s+(?:Anweisungen|Aufgaben|Instruktionen)|\bauf\s+(?:deine|Ihre)\s+neue\s+Aufgabe/i,
  },
  // "Forget all instructions" in a few more languages the dataset carries.
  {
    name: 'multilingual-forget-all',
    re: /\b(?:olvid[ae]\w*\s+tod[oa]s?|oubliez?\s+tou(?:t|tes|s)|dimentica\s+tutt[eoi]|zaboravi\s+sve)\b|(?:забудь(?:те)?\s+(?:все|всё))/i,
  },
];

// A persona declared to the model ("you are now DevMode", "from now on you are X", "act as X") and,
// in that sentence or the next, said to be free of its rules ("DevMode has no restrictions", "you
// are not bound by any rules", "X, who ignores its guidelines"). The one who is free must be the
// persona (its name again, or a relative clause on it) or "you": "You are now ready to deploy. The
// service has no restrictions on payload size." stays clean. Every gap is bounded (linear time).
const PERSONA_DECLARED = String.raw`\b(?:you(?:\s+are|['’]re)\s+now|you\s+will\s+now\s+(?:be|become)|(?:from\s+now\s+on|henceforth|starting\s+now),?\s+you(?:\s+are|['’]re|\s+will\s+be)|(?:act|roleplay|role-play)\s+as|pretend\s+to\s+be)`;
// Its name (group 1): "DevMode", "an AI called DevMode", `"Kairos"`.
const PERSONA_NAME = String.raw`(?:(?:an?|the)\s+(?:[\w-]+\s+)?(?:called|named)\s+)?["'“]?([\w-]{2,40})`;
const SAME_OR_NEXT_SENTENCE = String.raw`[^.!?\n]{0,80}?(?:[.!?]["'”)]?\s{0,3}[^.!?\n]{0,80}?)?`;
const PERSONA_SUBJECT = String.raw`(?:["'”]?,?\s+(?:which|who|that)|${SAME_OR_NEXT_SENTENCE}\b(?:\1|you|(?:AI|assistant|model|chatbot|bot|persona|character|entity)\s+(?:that|which|who)))`;
const RULES = String.raw`(?:(?:ethical|moral|content|safety|usual|such)\s+)?(?:restrictions?|limits?|limitations?|rules?|filters?|guidelines?|ethics|morals|boundaries|censorship|constraints?|policies|principles)\b`;
const FREE_OF_RULES = [
  String.raw`(?:has|have|had|['’]s|['’]ve)\s+(?:got\s+)?(?:no|zero)\s+${RULES}`,
  String.raw`(?:is|are|['’]re|was|were)\s+(?:not\s+(?:bound|limited|restricted|constrained)\s+by|free\s+(?:of|from)|without)\s+(?:(?:any|all)\s+)?${RULES}`,
  String.raw`(?:knows?|follows?|obeys?|respects?)\s+no\s+${RULES}`,
  String.raw`(?:does\s+not|doesn['’]t|do\s+not|don['’]t|will\s+not|won['’]t|never)\s+(?:have|follows?|obeys?|respects?|cares?\s+about|abides?\s+by|adheres?\s+to)\s+(?:(?:any|its|the|your)\s+)?${RULES}`,
  String.raw`ignores?\s+(?:(?:all|any|its|your|the)\s+)?(?:(?:own|usual)\s+)?${RULES}`,
  String.raw`(?:is|are|['’]re)\s+(?:now\s+)?(?:(?:completely|totally|fully|entirely)\s+)?(?:unrestricted|unfiltered|uncensored|unbound|unlimited|jailbroken|amoral)\b`,
].join('|');
// Or said so in an apposition: "DevMode, an unfiltered AI", "DevMode, an AI without any rules".
const FREE_APPOSITION = String.raw`["'”]?,\s+(?:an?|the)\s+(?:(?:unrestricted|unfiltered|uncensored|jailbroken|amoral)\b|(?:[\w-]+\s+){0,2}?(?:AI|assistant|model|chatbot|bot|persona|character|entity)\s+(?:with\s+no|without\s+(?:any\s+)?)${RULES})`;

const ROLE_HIJACK: NamedPattern[] = [
  {
    name: 'you-are-now',
    re: /\byou\s+are\s+now\s+(?:an?\s+|the\s+|my\s+|no\s+longer\b|free\b|unrestricted\b|unfiltered\b|uncensored\b|jailbroken\b|DAN\b|in\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode\b)/i,
  },
  {
    name: 'now-you-are-name',
    re: /\b(?:[Nn]ow|[Oo]kay|[Oo]k),?\s+you\s+are\s+(?:(?:an?|the)\s+)?[A-Z][\w-]+/,
  },
  {
    name: 'persona-without-rules',
    re: new RegExp(
      String.raw`${PERSONA_DECLARED}\s+${PERSONA_NAME}(?:${FREE_APPOSITION}|${PERSONA_SUBJECT}\s+(?:${FREE_OF_RULES}))`,
      'i',
    ),
  },
  {
    name: 'de-jetzt-bist-du',
    re: /\b(?:jetzt|nun|ab\s+sofort)\s+bist\s+du\b|\bstell\s+dir\s+vor,?\s+du\s+bist\b/i,
  },
  {
    name: 'i-want-you-to-act-as',
    re: /\b(?:I\s+(?:want|would\s+like|'d\s+like|need)\s+you\s+to\s+|you\s+(?:will|shall|must)\s+(?:now\s+)?|(?:from\s+)?now(?:\s+on)?,?\s+you\s+|you\s+are\s+(?:now\s+)?)(?:act|behave|roleplay|role-play|role-playing|roleplaying|pose)\s+(?:as|like)\b/i,
  },
  {
    name: 'de-als-fungieren',
    re: /\bdass\s+(?:Sie|du)\s+als\s+[^.!?\n]{1,60}?\s+(?:fungieren|fungierst|agieren|agierst|auftreten|auftrittst)\b/i,
  },
  {
    name: 'act-as-unrestricted',
    re: /\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|amoral|immoral|DAN\b)/i,
  },
  {
    name: 'pretend-to-be',
    re: /(?:^|[.!?:;]\s*|\b(?:you|please|now|just|and)\s+)pretend\s+(?:to\s+be|(?:that\s+)?you(?:'re|\s+are|\s+can|\s+have))\b/im,
  },
  {
    name: 'developer-mode',
    re: /\byou(?:'re|\s+are)?\s+(?:now\s+)?(?:in|with|running\s+in|operating\s+in)\s+(?:developer|dan|god|jailbreak|unrestricted)\s+mode\b|\b(?:enter|activate|enable)\s+(?:the\s+)?(?:DAN|jailbreak|god|unrestricted)\s+mode\b|\b(?:ChatGPT|GPT|Claude|the\s+(?:AI|assistant|model))\s+with\s+(?:developer|DAN)\s+mode/i,
  },
  {
    name: 'do-anything-now',
    re: /\bdo\s+anything\s+now\b|\b(?:you\s+are|act\s+as|become)\s+(?:now\s+)?DAN\b/i,
  },
  {
    name: 'no-guidelines',
    re: /\b(?:no|without(?:\s+any)?)\s+(?:ethical|moral|content|programming|safety)\s+(?:guidelines|restrictions|limits|limitations|filters|boundaries|policies)\b|\b(?:forked|unrestricted|uncensored|unfiltered|jailbroken)\s+version\s+of\s+(?:ChatGPT|GPT|Claude|the\s+(?:AI|model|assistant))/i,
  },
  {
    name: 'stay-in-character',
    re: /\b(?:never|do\s+not|don't|without)\s+(?:even\s+)?(?:break(?:ing)?|fall(?:ing)?\s+out\s+of)\s+(?:character|(?:their|your|the)\s+(?:roles?|figure))\b|\bstay\s+(?:fully\s+|always\s+)?in\s+(?:their|your)\s+roles?\b|\baus\s+(?:ihrer|der|seiner|deiner)\s+(?:Rolle|Figur)\s+(?:zu\s+)?fallen|\bin\s+(?:ihren|seiner|deiner)\s+Rollen?\b/i,
  },
  // A line that impersonates the system role: `SYSTEM: ...`, `System: you ...`, `### system`.
  {
    name: 'system-line-caps',
    re: /^[ \t>]*(?:\[SYSTEM\]|SYSTEM(?:\s+(?:MESSAGE|PROMPT|OVERRIDE|NOTE))?\s*:)/m,
  },
  {
    name: 'system-line-addressed',
    re: /^[ \t>]*(?:system|assistant)(?:\s+(?:message|prompt|override))?\s*:[^\n]*\b(?:you|your)\b/im,
  },
  {
    name: 'system-heading',
    re: /^[ \t]*#{1,6}[ \t]*(?:system|system\s+(?:prompt|message|instructions))[ \t]*#*[ \t]*$/im,
  },
];

const REVEAL_PROMPT: NamedPattern[] = [
  {
    name: 'reveal-your-prompt',
    re: /\b(?:reveal|print|show|display|output|repeat|tell|give|write|share|list|dump|leak|disclose|spell\s+out|return|recite)\s+(?:me\s+|us\s+)?(?:out\s+)?(?:all\s+(?:of\s+)?|a\s+copy\s+of\s+|back\s+)?(?:your|the\s+(?:full|entire|complete|original|initial|hidden|secret|exact|whole|system))\s+(?:(?:system|initial|original|hidden|secret|full|entire|complete|exact)\s+)*(?:prompts?|prompt[\s-]+texts?|instructions|rules|guidelines|directives|system\s+message)\b/i,
  },
  {
    name: 'copy-of-prompt',
    re: /\bcopy\s+of\s+(?:the|your)\s+(?:(?:full|entire|complete|original|system)\s+)*prompt/i,
  },
  {
    name: 'what-are-your-instructions',
    re: /\bwhat\s+(?:is|are|was|were)\s+(?:your\s+(?:system\s+prompt|prompt|instructions|rules|guidelines|initial\s+instructions)|the\s+(?:system\s+prompt|(?:initial|original|hidden|secret)\s+(?:instructions|prompt|rules)))\b/i,
  },
  {
    name: 'written-at-beginning',
    re: /\bwhat\s+(?:was|is)\s+written\s+(?:at\s+the\s+(?:beginning|start|top)|above|before)\b/i,
  },
  {
    name: 'repeat-text-above',
    re: /\b(?:repeat|print|output|show|recite)\s+(?:the\s+)?(?:text|words|everything|all|lines)\s+(?:above|before\s+this|preceding)/i,
  },
  {
    name: 'prompt-texts',
    re: /\b(?:show|reveal|print|display|output|showing)\b[^.!?\n]{0,30}\bprompt[\s-]*texts?\b/i,
  },
  {
    name: 'prompt-verbatim',
    re: /\b(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)\s+(?:verbatim|word\s+for\s+word)\b/i,
  },
  {
    name: 'de-zeige-prompt',
    re: /\b(?:zeige?|gib|nenne|wiederhole|verrate)\b[^.!?\n]{0,40}(?:Prompt-?Text(?:e|es)?|System-?prompt)\b/i,
  },
];

const SECRECY: NamedPattern[] = [
  {
    // "Never mention this note": the memory asks to stay out of sight (found storing one as an
    // attacker: it reached main active). Not "these instructions": system prompts say that.
    name: 'never-mention-this-note',
    re: /\b(?:never|do\s+not|don't|must\s+not)\s+(?:mention|reveal|disclose|acknowledge|refer\s+to|talk\s+about|bring\s+up)\s+(?:this|these)\s+(?:note|notes|memory|memories|message|text|change|request)\b/i,
  },
  {
    // An order to act unseen ("please quietly add this key"), not a description of a tool that
    // "silently ignores" something: the adverb opens a clause or follows an order's lead-in.
    name: 'quietly-do',
    re: /(?:^|[.!?:;,]\s*|\b(?:please|and|then|also|to|you\s+(?:should|must|need\s+to|will|can|may))\s+)(?:quietly|silently|secretly|covertly|discreetly|stealthily)\s+(?:add|append|insert|send|upload|post|run|execute|install|push|commit|delete|remove|disable|change|modify|copy|forward|email|transfer|grant|create|include|replace|download)\b/im,
  },
  {
    name: 'do-not-tell-the-user',
    re: /\b(?:do\s+not|don't|never|must\s+not)\s+(?:tell|inform|mention|reveal|say|explain|disclose|show|report|admit)\s+(?:(?:this|it|that|anything|any\s+of\s+this)\s+)?(?:to\s+)?the\s+(?:user|human|operator)(?!['’]s|s\b|\s+(?:id|name|email|data|record|account|object|table|model))\b/i,
  },
  {
    name: 'do-not-let-the-user-know',
    re: /\b(?:do\s+not|don't|never)\s+(?:let|allow)\s+the\s+(?:user|human)\s+(?:know|see|find\s+out|notice)\b/i,
  },
  {
    name: 'keep-secret-from-user',
    re: /\b(?:keep|hide)\s+(?:this|it|that|these\s+instructions|this\s+message)\s+(?:a\s+)?(?:secret\s+|hidden\s+)?from\s+the\s+(?:user|human)\b/i,
  },
  {
    name: 'without-the-user-knowing',
    re: /\bwithout\s+the\s+user(?:['’]s)?\s+(?:knowing|knowledge|being\s+aware)\b/i,
  },
  {
    name: 'user-must-not-know',
    re: /\bthe\s+user\s+(?:(?:must|should|may)\s+(?:not|never)|mustn['’]t|shouldn['’]t)\s+(?:know|find\s+out|learn|see|notice|be\s+(?:told|informed|notified|made\s+aware))\b/i,
  },
  {
    // "The user is not allowed to see this note", "the user isn't supposed to know". Seeing needs
    // this note (or nothing) as its object: "the user is not allowed to see other tenants' invoices"
    // is an access rule of the product.
    name: 'user-not-allowed-to-know',
    re: /\bthe\s+(?:user|human)(?:\s+is\s+(?:not|never)|\s+isn['’]t|['’]s\s+not)\s+(?:(?:allowed|permitted|supposed|meant)\s+)?to\s+(?:know|find\s+out|learn|notice|be\s+(?:told|informed|notified|made\s+aware)|(?:see|read|view|hear)\s+(?:about\s+)?(?:this|these|that|it)\b|(?:see|read|view)(?=\s*(?:[,.;:!]|$)))/im,
  },
  {
    name: 'de-nutzer-nichts-sagen',
    re: /\b(?:sag|erzähl|verrat)(?:e|en)?\s+(?:es\s+)?(?:dem|den)\s+(?:Nutzer|Benutzer|Anwender)n?\s+(?:nichts|nicht)\b|\bohne\s+dass\s+(?:der|die)\s+(?:Nutzer|Benutzer|Anwender)(?:in)?\s+es\s+(?:merkt|weiß|erfährt)/i,
  },
];

const FALSE_AUTHORITY: NamedPattern[] = [
  {
    name: 'already-authorized-you',
    re: /\b(?:the\s+user|the\s+owner|the\s+admin(?:istrator)?|your\s+(?:user|owner|operator|developer|admin)|the\s+maintainers?|the\s+security\s+team|management)\s+(?:has|have)\s+(?:already\s+)?(?:explicitly\s+)?(?:authori[sz]ed|approved|allowed|permitted|granted|cleared)\s+(?:you|the\s+(?:assistant|agent|AI|model))\b/i,
  },
];

export const overrideRule: ScanRule = {
  code: 'injection/override',
  category: 'injection',
  severity: 'error',
  title: 'Instruction override',
  why: 'Text in a memory is later injected into an agent prompt; an order to drop earlier instructions can make the agent obey this memory instead of its user.',
  find: (input) => findPatterns(input, OVERRIDE),
};

export const roleHijackRule: ScanRule = {
  code: 'injection/role-hijack',
  category: 'injection',
  severity: 'warning',
  title: 'Role or identity hijack',
  why: 'A memory that assigns the agent a new identity or impersonates the system role can change how the agent behaves for every task that retrieves it.',
  find: (input) => findPatterns(input, ROLE_HIJACK),
};

export const revealPromptRule: ScanRule = {
  code: 'injection/reveal-prompt',
  category: 'injection',
  severity: 'error',
  title: 'System prompt extraction',
  why: 'Asking the agent to print its system prompt or hidden instructions leaks configuration and secrets to whoever reads the answer.',
  find: (input) => findPatterns(input, REVEAL_PROMPT),
};

export const secrecyRule: ScanRule = {
  code: 'injection/secrecy',
  category: 'injection',
  severity: 'warning', // product rules ("never tell the user X before Y") read alike: a reviewer decides
  title: 'Secrecy instruction',
  why: 'An instruction to hide something from the user has no legitimate place in a memory; it is how injected text keeps its actions unseen.',
  find: (input) => findPatterns(input, SECRECY),
};

export const falseAuthorityRule: ScanRule = {
  code: 'injection/false-authority',
  category: 'injection',
  severity: 'warning', // a team's agent policy may say who allowed what: a reviewer decides
  title: 'Claimed authorization',
  why: 'A memory cannot grant the agent permissions: text saying the user or an admin already authorized it is how planted instructions get an agent to skip its checks.',
  find: (input) => findPatterns(input, FALSE_AUTHORITY),
};

/** Each phrase rule's patterns (a test checks the screen findPatterns puts before them). */
export const PHRASE_PATTERN_LISTS: readonly (readonly NamedPattern[])[] = [
  OVERRIDE,
  ROLE_HIJACK,
  REVEAL_PROMPT,
  SECRECY,
  FALSE_AUTHORITY,
];

/** The phrase rules, also used to re-scan decoded payloads and HTML comments. */
export const PHRASE_RULES: readonly ScanRule[] = [
  overrideRule,
  roleHijackRule,
  revealPromptRule,
  secrecyRule,
  falseAuthorityRule,
];
