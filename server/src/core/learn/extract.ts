// Durable statements in chat messages, by rules: an explicit "remember that ...", a decision, a
// convention, a preference, or a project fact that reads as a triple. Each gets a confidence and a
// reason a reviewer can read; hedged or sensitive statements are marked for review. Pure.
import type { MemoryKind, Triple } from '../types.js';
import { casualReview } from './casual.js';
import type { TranscriptMessage } from './transcripts.js';

export interface LearnedStatement {
  text: string;
  kind: MemoryKind;
  confidence: number;
  /** Why it was learned, for the reviewer: "explicit: remember", "a decision", ... */
  why: string;
  /** Personal or secret-adjacent: always reviewed by a person. */
  sensitive: boolean;
  triple?: Triple;
  /** The message it came from (the watermark key). */
  messageId: string;
}

interface Rule {
  why: string;
  kind: MemoryKind;
  confidence: number;
  match: RegExp;
  /** Which capture holds the statement; 0 keeps the whole sentence. */
  group: number;
}

const RULES: Rule[] = [
  {
    why: 'explicit: "remember"',
    kind: 'fact',
    confidence: 0.95,
    match: /\b(?:please\s+)?(?:remember|keep in mind)(?:\s+that)?\s*[:,-]?\s+(.{8,})/i,
    group: 1,
  },
  {
    why: 'a decision',
    kind: 'decision',
    confidence: 0.9,
    match:
      /\b(?:we|i|the team)(?:'ve| have)?\s+(?:decided|chose|agreed|settled on|went with|picked)\b|^decision\s*:/i,
    group: 0,
  },
  {
    why: 'a convention',
    kind: 'procedure',
    confidence: 0.9,
    match: /\b(?:from now on|going forward|as a rule|by convention|our convention is)\b|^convention\s*:/i,
    group: 0,
  },
  {
    why: 'a preference',
    kind: 'preference',
    confidence: 0.85,
    match:
      /^(?:i|we)\s+(?:always|never|prefer|like to|would rather)\b|^(?:always|never)\s+(?!(?:the|a|an|mind|again|ever|something|same)\b)\w|\b(?:i|we)\s+prefer\b/i,
    group: 0,
  },
];

const FACT =
  /^(?:the\s+|our\s+)?([a-z0-9][\w ./-]{1,40}?)\s+(uses|runs on|is built with|depends on|is deployed (?:to|on)|is written in|is hosted on|stores \w+ in)\s+([\w ./@+-]{2,60}?)\.?$/i;
const HEDGE = /\b(?:maybe|perhaps|i think|i guess|might|not sure|probably|possibly|for now)\b/i;
const SENSITIVE =
  /\b(?:password|passphrase|salary|ssn|social security|diagnos\w*|medical|health|pregnan\w*|religio\w*|home address|phone number|bank account|credit card|my wife|my husband|my kids?)\b/i;
/** About the moment, not the project: a break, "right now", an undo of the last step. */
const TRANSIENT =
  /\b(?:right now|back in|for now|today|tonight|this (?:morning|afternoon|evening|week)|a break|just a quick|for a moment|switch back|try again|not sure|something about)\b/i;
const SKIP = /\?\s*$|^(?:if|when|should|could|would|can|do|does|did|what|why|how|is|are)\b/i;
const CONFIRM =
  /^\s*(?:yes|yep|yeah|correct|exactly|right|agreed|sounds good|lgtm|perfect|ok(?:ay)?,? (?:do|go|let's)|do it|go ahead)\b/i;

/** Sentences and bullet items, without markdown bullets, code blocks or quoted text. */
export function sentences(text: string): string[] {
  const noCode = text.replace(/```[\s\S]*?```/g, ' ').replace(/^>.*$/gm, ' ');
  const out: string[] = [];
  for (const line of noCode.split('\n')) {
    const item = line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').trim();
    if (!item) continue;
    for (const s of item.split(/(?<=[.!?])\s+(?=[A-Z"'`(])/)) if (s.trim()) out.push(s.trim());
  }
  return out;
}

function tidy(s: string): string {
  const t = s.replace(/\s+/g, ' ').trim().slice(0, 500);
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!]$/.test(capital) ? capital : `${capital}.`;
}

/** Below the default autoFloor (0.8) and above reviewFloor (0.55): a candidate for a person. */
const REVIEW_ONLY = 0.7;

function fromSentence(sentence: string, messageId: string, base: number): LearnedStatement | null {
  if (sentence.length < 12 || SKIP.test(sentence) || TRANSIENT.test(sentence)) return null;
  const review = casualReview(sentence);
  if (review === null) return null;
  if (review) {
    const st = fromRules(sentence, messageId, Math.min(base, REVIEW_ONLY));
    return st && { ...st, why: `${st.why}, ${review}: for review` };
  }
  return fromRules(sentence, messageId, base);
}

function fromRules(sentence: string, messageId: string, base: number): LearnedStatement | null {
  const hedged = HEDGE.test(sentence);
  const sensitive = SENSITIVE.test(sentence);
  for (const rule of RULES) {
    const m = rule.match.exec(sentence);
    if (!m) continue;
    const body = rule.group ? m[rule.group] : sentence;
    if (!body || body.trim().length < 8) continue;
    const fact = FACT.exec(body.replace(/[.!]+$/, ''));
    return {
      text: tidy(body),
      kind: rule.kind,
      confidence: Math.max(0, Math.min(base, rule.confidence) - (hedged ? 0.25 : 0)),
      why: rule.why + (hedged ? ', hedged' : ''),
      sensitive,
      triple: fact ? triple(fact) : undefined,
      messageId,
    };
  }
  const fact = FACT.exec(sentence.replace(/[.!]+$/, ''));
  if (!fact || hedged) return null;
  // A fact stated in passing is an inference: it is proposed, never made active on its own.
  return {
    text: tidy(sentence),
    kind: 'fact',
    confidence: Math.min(base, 0.6),
    why: 'a project fact (inferred)',
    sensitive,
    triple: triple(fact),
    messageId,
  };
}

function triple(m: RegExpExecArray): Triple {
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, '-');
  // "uses CockroachDB now": the time word is not part of the object.
  const object = m[3].replace(/\s+(?:now|today|these days|nowadays)$/i, '');
  return { s: norm(m[1]), p: norm(m[2]), o: norm(object) };
}

/**
 * Statements worth remembering in one conversation: the user's own messages, and the assistant's
 * decisions or conventions that the user's next message confirms (at a lower confidence). Background
 * and tool messages are skipped.
 */
export function extractStatements(messages: TranscriptMessage[]): LearnedStatement[] {
  const out: LearnedStatement[] = [];
  const spoken = messages.filter((m) => !m.background && m.text.trim());
  spoken.forEach((m, i) => {
    if (m.role === 'user') {
      for (const s of sentences(m.text)) {
        const st = fromSentence(s, m.id, 1);
        if (st) out.push(st);
      }
    } else if (m.role === 'assistant') {
      const next = spoken[i + 1];
      if (!next || next.role !== 'user' || !CONFIRM.test(next.text)) return;
      for (const s of sentences(m.text)) {
        const st = fromSentence(s, m.id, 0.75);
        if (st && (st.kind === 'decision' || st.kind === 'procedure'))
          out.push({ ...st, why: `${st.why}, stated by the assistant and confirmed by the user` });
      }
    }
  });
  return out;
}
