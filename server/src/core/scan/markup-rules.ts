// Injection rules that look at markup: chat-template tags, HTML comments, exfiltration URLs.
import type { NamedPattern, RuleMatch, ScanInput, ScanRule } from './types.js';
import { codeSpans, findPatterns, insideSpans, makeScanInput } from './text-utils.js';
import { PHRASE_RULES } from './phrase-rules.js';

const TEMPLATE_TAGS = [
  { name: 'pipe-token', re: /<\|[a-z][a-z0-9_]{1,30}\|>/i },
  { name: 'llama-inst', re: /\[\/?INST\]|<<\/?SYS>>/ },
  {
    name: 'xml-role-or-tool-tag',
    re: /<\/?(?:system|system-reminder|assistant|tool_call|tool_calls|tool_use|tool_result|function_calls?|function_results|invoke|start_of_turn|end_of_turn|antml:[a-z_]+)(?=[\s>/])[^<>\n]{0,80}>/i,
  },
  { name: 'end-of-sequence', re: /<\/s>/ },
];

/**
 * `<s>old</s>` is HTML strikethrough: a `</s>` after more `<s>` than `</s>` is not an end-of-sequence
 * token. The offsets of those `</s>`, in one pass (counting before each match cost n² on many tags).
 */
function strikethroughCloses(text: string): Set<number> {
  const closes = new Set<number>();
  let opened = 0;
  let closed = 0;
  for (const m of text.matchAll(/<(\/?)s>/gi)) {
    if (!m[1]) opened++;
    else {
      if (opened > closed) closes.add(m.index);
      closed++;
    }
  }
  return closes;
}

export const templateTagsRule: ScanRule = {
  code: 'injection/template-tags',
  category: 'injection',
  severity: 'error',
  title: 'Chat-template or tool-call tag',
  why: 'Tokens such as <|im_start|>, [INST] or <tool_call> can make a model read the memory as a new system or tool turn instead of as data.',
  find(input) {
    const spans = codeSpans(input.text);
    const strikethrough = strikethroughCloses(input.text);
    return findPatterns(input, TEMPLATE_TAGS)
      .filter((m) => !(m.pattern === 'end-of-sequence' && strikethrough.has(m.start)))
      .map((m) =>
        insideSpans(m.start, spans)
          ? {
              ...m,
              severity: 'warning' as const,
              note: 'It sits in a code span, which some runtimes still pass through as a special token.',
            }
          : m,
      );
  },
};

/** HTML comments are invisible in rendered markdown, so a reviewer never sees what they tell the agent. */
const ADDRESSES_AGENT =
  /(?:^|[\s(>"'])(?:(?:note|message|reminder)\s+(?:to|for)\s+(?:the\s+)?|(?:dear|hey|hi)\s+)?(?:AI|assistant|agent|AI\s+agent|AI\s+assistant|LLM|Claude|GPT|ChatGPT|Copilot|Cursor)\s*[:,]\s*\S|\b(?:AI|assistant|agent|LLM|language\s+model|chatbot|Claude|GPT|ChatGPT|Copilot|Cursor)\b[^\n]{0,80}\b(?:you|your|must|should|always|never|do\s+not|don't)\b|\b(?:you|your)\b[^\n]{0,40}\b(?:AI|assistant|agent|LLM|model)\b|\byou\s+(?:must|should|will|are\s+to|need\s+to|have\s+to|shall)\b|\b(?:ignore|disregard|forget)\b[^\n]{0,40}\b(?:instructions?|rules|prompt|above|previous)\b/i;

/** True when hidden text tells the agent something: a phrase rule fires inside, or it addresses it. */
function carriesInstructions(body: string, depth: number): 'injection-inside' | 'addresses-agent' | null {
  const inner = makeScanInput(body, depth + 1);
  if (PHRASE_RULES.some((rule) => rule.find(inner).length > 0)) return 'injection-inside';
  return ADDRESSES_AGENT.test(inner.folded) ? 'addresses-agent' : null;
}

export const htmlCommentRule: ScanRule = {
  code: 'hidden/html-comment',
  category: 'hidden',
  severity: 'warning',
  title: 'Instructions hidden in an HTML comment',
  why: 'HTML comments do not render, so reviewers do not see them, but the agent reads them as part of its prompt.',
  find(input) {
    const matches: RuleMatch[] = [];
    for (const m of input.text.matchAll(/<!--([\s\S]*?)(?:-->|$)/g)) {
      const pattern = carriesInstructions(m[1], input.depth);
      if (pattern) matches.push({ start: m.index, end: m.index + m[0].length, pattern });
    }
    return matches;
  },
};

// Markdown's comment idiom, a link reference definition (`[//]: # (text)`), and HTML elements styled
// out of sight: neither renders, so a reviewer reading the page does not see what the agent reads.
const LINK_REFERENCE_COMMENT =
  /^[ \t]{0,3}\[[^\]\n]{1,60}\]:[ \t]*(?:#|<>|<[^>\n]{0,200}>|[^\s]{1,300})[ \t]+(?:\(([^\n)]{1,2000})\)|"([^"\n]{1,2000})"|'([^'\n]{1,2000})')[ \t]*$/gm;
const HIDDEN_ELEMENT = /<(div|span|p|section|small|font|aside)\b([^<>]{0,400})>([\s\S]{0,4000}?)<\/\1\s*>/gi;
const HIDES_ELEMENT =
  /\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d])|opacity\s*:\s*0(?![.\d]*[1-9])/i;

export const unrenderedTextRule: ScanRule = {
  code: 'hidden/unrendered',
  category: 'hidden',
  severity: 'warning',
  title: 'Instructions hidden in markup that does not render',
  why: 'A markdown comment (`[//]: # (...)`) or an HTML element styled out of sight is not shown to reviewers, but the agent reads it as part of its prompt.',
  find(input) {
    const matches: RuleMatch[] = [];
    for (const m of input.text.matchAll(LINK_REFERENCE_COMMENT)) {
      const pattern = carriesInstructions(m[1] ?? m[2] ?? m[3] ?? '', input.depth);
      if (pattern) matches.push({ start: m.index, end: m.index + m[0].length, pattern });
    }
    for (const m of input.text.matchAll(HIDDEN_ELEMENT)) {
      if (!HIDES_ELEMENT.test(m[2])) continue;
      const pattern = carriesInstructions(m[3], input.depth);
      if (pattern) matches.push({ start: m.index, end: m.index + m[0].length, pattern });
    }
    return matches;
  },
};

// `<NAME>` may end the URL: the link syntax's optional `>` takes its closing bracket.
const PLACEHOLDER_IN_URL =
  /\{[^}\s]{1,60}\}|\$\{?[A-Za-z_][A-Za-z0-9_]*|%s\b|\[(?:DATA|SECRET|TOKEN|CONVERSATION|HISTORY|CONTEXT|INFO|QUERY)\]|<[A-Za-z_][^>]{0,40}(?:>|$)|\b(?:INSERT|APPEND)_?[A-Z_]*HERE\b/;
// A placeholder that names what an attacker wants filled in: keys, tokens, secrets, credentials,
// passwords, the environment, the conversation. The word is a whole part of a snake_case name
// (API_KEYS, the_user_password, CHAT_HISTORY), so "keyboard" or "monkey" is none.
const SECRET_WORD = String.raw`(?:api_?keys?|keys?|tokens?|secrets?|credentials?|creds|passwords?|passwd|env|environment|env_?vars?|environment_variables|conversation|chat|chat_?history|history|messages|cookies?)(?![a-z0-9])`;
const SECRET_NAME = String.raw`(?:[a-z0-9]{1,20}_){0,6}${SECRET_WORD}(?:_[a-z0-9]{1,20}){0,4}`;
// Bare words (REPLACE_WITH_API_KEYS, GITHUB_TOKEN_HERE, __CREDENTIALS__): see secretPlaceholder.
const SECRET_PLACEHOLDER_WORD = new RegExp(
  String.raw`\b(?:REPLACE(?:_WITH|_ME)?|INSERT|PASTE|FILL_IN|APPEND)_${SECRET_NAME}|\b${SECRET_NAME}_HERE\b|__${SECRET_NAME}__`,
  'gi',
);
// Bracketed, in any case: [SECRETS] (not `filter[token]=`, a parameter's name), %API_KEY%, and
// {X}, <X>, [X] percent-encoded.
const SECRET_PLACEHOLDER_BRACKETED = new RegExp(
  String.raw`\[${SECRET_NAME}\](?!=)|%${SECRET_NAME}%|(?:%5B|%7B|%3C)${SECRET_NAME}(?:%5D|%7D|%3E)`,
  'i',
);

/**
 * True when the URL holds a placeholder naming secrets. A bare word must be in capitals or be a
 * query value (`?d=replace_with_api_keys`): in lower case elsewhere it is a page's name
 * (`/docs/insert_token.md`).
 */
function secretPlaceholder(url: string): boolean {
  if (SECRET_PLACEHOLDER_BRACKETED.test(url)) return true;
  for (const m of url.matchAll(SECRET_PLACEHOLDER_WORD)) {
    if (m[0] === m[0].toUpperCase() || url[m.index - 1] === '=') return true;
  }
  return false;
}
// Also files that hold keys ("the contents of ~/.ssh/id_rsa"): found storing one as an attacker.
const SENSITIVE_OBJECT = String.raw`(?:(?:the|this|all|your|our|any|entire|full|whole|user's|users')\s+)*(?:contents?\s+of\s+(?:the\s+|your\s+)?)?(?:(?:~|\$HOME)?\/?\.ssh\/[\w.-]+|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?|(?:ssh|private|signing|gpg|pgp)\s+keys?|(?:~\/)?\.aws\/credentials|(?:~\/)?\.(?:npmrc|netrc|pypirc)|\/etc\/(?:passwd|shadow)|(?:auth|session|bearer|github|npm)\s+tokens?|cookies|conversation|chat(?:\s+history)?|(?:previous|earlier|prior)\s+messages|message\s+history|system\s+prompt|secrets?|api\s+keys?|access\s+tokens?|passwords?|credentials|(?:user|personal|private)\s+data|env(?:ironment)?\s+variables|\.env(?:\s+file)?)`;
const EXFIL_PROSE = [
  {
    name: 'append-data-to-url',
    re: new RegExp(
      String.raw`\b(?:append|add|attach|include|put|encode|insert|embed)\s+${SENSITIVE_OBJECT}\b[^.!?\n]{0,40}\b(?:to|in|into|onto|as)\s+(?:the\s+|this\s+|a\s+|an\s+|its\s+)?(?:url|link|image(?:\s+url)?|query(?:\s+string)?|request|webhook|markdown\s+image)`,
      'i',
    ),
  },
  {
    name: 'send-data-to-url',
    re: new RegExp(
      String.raw`\b(?:send|post|upload|forward|exfiltrate|transmit|leak|e?mail|copy|paste|submit)\s+${SENSITIVE_OBJECT}(?:\b|(?<=[~/.]))[^.!?\n]{0,60}?\b(?:to|at|into)\s+(?:https?:\/\/|[\w.+-]+@[\w-]+\.[\w.]+|(?:this|the\s+following|that|my|our)\s+(?:url|link|address|webhook|endpoint|server|email|inbox|gist|pastebin))`,
      'i',
    ),
  },
];

/** True when a URL carries data: placeholders, or a query value long enough to hold a payload. */
function urlCarriesData(url: string, { isImage }: { isImage: boolean }): string | undefined {
  if (secretPlaceholder(url)) return 'a placeholder for secrets to fill in';
  if (PLACEHOLDER_IN_URL.test(url)) return 'a placeholder for data to fill in';
  if (!isImage) return undefined;
  const query = url.split('?')[1];
  if (!query) return undefined;
  for (const pair of query.split('&')) {
    const value = pair.slice(pair.indexOf('=') + 1);
    if (value.length >= 40) return `a ${value.length}-character query value`;
  }
  return undefined;
}

export const exfiltrationRule: ScanRule = {
  code: 'injection/exfiltration',
  category: 'injection',
  severity: 'error',
  title: 'Data exfiltration beacon',
  why: 'An image or link whose URL carries data sends that data to a third party as soon as an agent renders or follows it.',
  find(input: ScanInput) {
    const matches: RuleMatch[] = [];
    // Bounded, and no backtracking into the URL (`(?=(...))\2` takes it whole): nested quantifiers
    // over a long line of `[a](http://...` backtracked for minutes. Link text stops at `[`, so a run
    // of brackets costs one step each; a title is quoted, as in CommonMark.
    const urlish =
      /(!?)\[[^[\]\n]{0,1000}\]\(\s*<?(?=([^)\s>]{1,4096}))\2>?(?:\s+(?:"[^"\n]{0,1000}"|'[^'\n]{0,1000}'))?\s*\)|<img\b[^>]{0,1000}?\bsrc\s*=\s*["']?([^"'\s>]{1,4096})/gi;
    for (const m of input.text.matchAll(urlish)) {
      const isImage = m[1] === '!' || m[3] !== undefined;
      const url = m[2] ?? m[3];
      if (!/^(?:https?:)?\/\//i.test(url)) continue;
      const reason = urlCarriesData(url, { isImage });
      if (reason) {
        matches.push({
          start: m.index,
          end: m.index + m[0].length,
          pattern: isImage ? 'image-url-data' : 'link-url-data',
          note: `The URL carries ${reason}.`,
        });
      }
    }
    return matches.concat(findPatterns(input, EXFIL_PROSE));
  },
};

/** The markup rules' pattern lists (a test checks the screen findPatterns puts before them). */
export const MARKUP_PATTERN_LISTS: readonly (readonly NamedPattern[])[] = [TEMPLATE_TAGS, EXFIL_PROSE];
