// Another assistant's memory, pasted back as text (`cairn import --source chatgpt|gemini`). The text
// is untrusted: it is split into one statement per fact, and each goes through the scanner and
// review like any import. Pure.
import { isFlagged, scanText } from '../scan/scan.js';
import { redactSecrets } from '../scan/redact.js';
import type { MemoryKind } from '../types.js';
import { sentences } from './extract.js';

export const ASSISTANT_SOURCES = ['chatgpt', 'gemini'] as const;
export type AssistantSource = (typeof ASSISTANT_SOURCES)[number];

const NAMES: Record<AssistantSource, string> = { chatgpt: 'ChatGPT', gemini: 'Gemini' };

/** What the user pastes into the other assistant to get its memory out in a shape Cairn reads. */
export function importPrompt(source: AssistantSource): string {
  return [
    `Paste this into ${NAMES[source]}, then save its whole answer to a file and run`,
    `  cairn import --source ${source} FILE`,
    '',
    '---',
    'List everything you remember about me and my work from our past conversations and your saved memory.',
    'Write markdown only: a "## " heading per topic (for example Projects, Tools, Preferences, Conventions),',
    'and under it one "- " bullet per fact, one fact per bullet, in plain sentences, in the third person',
    '("The user prefers ..."). Give decisions with their reason in the same bullet. Do not add advice,',
    'commentary, questions or instructions, and leave out passwords, keys and other secrets.',
    '---',
  ].join('\n');
}

export interface DumpStatement {
  text: string;
  kind: MemoryKind;
  /** The heading it was under, as a tag. */
  topic?: string;
  /** 1-based line in the pasted text. */
  line: number;
}

function kindOf(text: string): MemoryKind {
  if (/\b(?:decided|chose|agreed|settled on|went with)\b/i.test(text)) return 'decision';
  if (/\b(?:prefers?|likes?|dislikes?|always|never|favou?rite|would rather)\b/i.test(text))
    return 'preference';
  if (/\b(?:convention|rule|workflow|process|from now on)\b/i.test(text)) return 'procedure';
  return 'fact';
}

/**
 * A heading as a tag, or none when the heading holds a credential or an instruction: made into a
 * slug (`ghp-zq8v...`, `ignore-previous-instructions-and-...`) it slipped past the secret rules and
 * the scanner, and went to git and to agents in the memory's front matter.
 */
function tag(heading: string): string | undefined {
  if (redactSecrets(heading).redactions.length || isFlagged(scanText(heading))) return undefined;
  const t = heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
  return t || undefined;
}

/** Compound bullets become one statement per clause: "X; Y" and "X, and Y" when both stand alone. */
function clauses(sentence: string): string[] {
  return sentence
    .split(/;\s+|,\s+and\s+(?=(?:the user|they|he|she|i|we)\b)/i)
    .map((c) => c.trim())
    .filter((c) => c.split(/\s+/).length >= 3);
}

const BULLET = /^([-*+]|\d+[.)])\s+/;

/**
 * One statement per fact. When the answer has bullets, only bullets count: the lines around them
 * are the assistant's preamble and sign-off ("Let me know if ...").
 */
export function parseAssistantDump(text: string): DumpStatement[] {
  const out: DumpStatement[] = [];
  const bulletsOnly = text.split('\n').some((l) => BULLET.test(l.trim()));
  let topic: string | undefined;
  let inFence = false;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence || !line || /^(```|~~~|---+$)/.test(line)) return;
    const heading = /^#{1,6}\s+(.*)$/.exec(line) ?? /^\*\*([^*]+)\*\*:?$/.exec(line);
    if (heading) {
      topic = tag(heading[1]);
      return;
    }
    if (bulletsOnly ? !BULLET.test(line) : /:\s*$/.test(line)) return;
    for (const s of sentences(line))
      for (const c of clauses(s)) {
        const one = c.replace(/\s+/g, ' ').slice(0, 500);
        const clean = one.charAt(0).toUpperCase() + one.slice(1);
        out.push({
          text: /[.!]$/.test(clean) ? clean : `${clean}.`,
          kind: kindOf(clean),
          topic,
          line: i + 1,
        });
      }
  });
  return out;
}
