// The session-start block an agent runtime injects into the prompt (`cairn context`): MEMORY.md,
// the top knowledge-graph entities and, for agents without a search tool, recent daily notes, all
// within a token budget. Every section is scanned first: a flagged passage is withheld and a notice
// names the rule, because this text goes straight into a model's instructions. Pure.
import type { EntitySummary } from './graph.js';
import { parseMemoryMd } from './memory-md.js';
import { isFlagged, scanText, type InjectionDetector, type ScanFinding } from './scan/index.js';

export interface ContextBlockInput {
  memoryMd: string | null;
  entities: EntitySummary[];
  /** Daily notes, newest first; only the first 3 are used. */
  dailyNotes: { date: string; text: string }[];
  /** Agents with a search tool find notes themselves; the block then skips them. */
  hasSearchTool: boolean;
  budgetTokens: number;
  /** The learned detector (injection/model); without it only the rules run. */
  detector?: InjectionDetector;
}

export interface WithheldPassage {
  section: 'memory' | 'knowledgeGraph' | 'recentNotes';
  source: string;
  /** 1-based line in the source file where the withheld passage starts. */
  line: number;
  rules: string[];
  why: string;
}

export interface ContextBlockJson {
  budgetTokens: number;
  tokensUsed: number;
  sections: string[];
  memory: { included: boolean; truncated: boolean; droppedEntries: number };
  knowledgeGraph: { entities: EntitySummary[] };
  recentNotes: { date: string; truncated: boolean }[];
  withheld: WithheldPassage[];
}

export const DEFAULT_CONTEXT_TOKENS = 1500;
export const CHARS_PER_TOKEN = 4;

/** Replaces each blank-line-separated passage holding a flagged finding with a notice. */
export function withholdFlagged(
  text: string,
  where: { section: WithheldPassage['section']; source: string },
  detector?: InjectionDetector,
): { text: string; withheld: WithheldPassage[] } {
  const findings = scanText(text, { detector }).filter((f) => isFlagged([f]));
  if (!findings.length) return { text, withheld: [] };
  // The scanner's lines end at a lone \r too (old Mac line endings).
  const lines = text.split(/\r\n?|\n/);
  const passages: { start: number; end: number }[] = [];
  let start = -1;
  lines.forEach((l, i) => {
    if (l.trim() && start < 0) start = i;
    if (!l.trim() && start >= 0) {
      passages.push({ start, end: i });
      start = -1;
    }
  });
  if (start >= 0) passages.push({ start, end: lines.length });
  const hits = new Map<number, ScanFinding[]>();
  for (const f of findings) {
    const i = passages.findIndex((p) => f.range.start.line >= p.start && f.range.start.line < p.end);
    if (i >= 0) hits.set(i, [...(hits.get(i) ?? []), f]);
  }
  const withheld: WithheldPassage[] = [];
  const out = [...lines];
  for (const [i, fs] of [...hits.entries()].sort((a, b) => b[0] - a[0])) {
    const p = passages[i];
    const rules = [...new Set(fs.map((f) => f.code))];
    withheld.unshift({ ...where, line: p.start + 1, rules, why: fs[0].why });
    const notice = `> [Cairn withheld a passage from ${where.source} (line ${p.start + 1}): flagged by ${rules.join(', ')}. A person should review it.]`;
    out.splice(p.start, p.end - p.start, notice);
  }
  return { text: out.join('\n'), withheld };
}

/** Cuts at a line boundary so the text fits `maxChars`, saying how much was left out. */
export function fitText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const room = Math.max(0, maxChars - 40);
  const cut = text.lastIndexOf('\n', room);
  const kept = text.slice(0, cut > 0 ? cut : room);
  return { text: `${kept}\n… (${text.length - kept.length} more characters)`, truncated: true };
}

/** MEMORY.md within `maxChars`: the oldest appended entries go first, then a plain cut. */
function fitMemory(
  text: string,
  maxChars: number,
): { text: string; truncated: boolean; droppedEntries: number } {
  const doc = parseMemoryMd(text);
  let entries = doc.entries;
  let dropped = 0;
  const render = () => doc.header + entries.map((e) => text.slice(e.start, e.end)).join('');
  let current = render();
  while (current.length > maxChars && entries.length > 0) {
    entries = entries.slice(1);
    dropped++;
    current = render();
  }
  const fitted = fitText(current.trim(), maxChars);
  return { text: fitted.text, truncated: fitted.truncated || dropped > 0, droppedEntries: dropped };
}

function graphText(entities: EntitySummary[]): string {
  return entities
    .map(
      (e) => `- ${e.entity} (${e.facts} current fact${e.facts === 1 ? '' : 's'}): ${e.examples.join('; ')}`,
    )
    .join('\n');
}

/** Assembles the block; returns the markdown and a JSON account of what went in and what was withheld. */
export function buildContextBlock(input: ContextBlockInput): { text: string; json: ContextBlockJson } {
  const budget = input.budgetTokens * CHARS_PER_TOKEN;
  const withheld: WithheldPassage[] = [];
  const scan = (text: string, section: WithheldPassage['section'], source: string) => {
    const r = withholdFlagged(text, { section, source }, input.detector);
    withheld.push(...r.withheld);
    return r.text;
  };
  const graph = input.entities.length
    ? scan(graphText(input.entities), 'knowledgeGraph', 'the knowledge graph')
    : '';
  const notes = input.hasSearchTool
    ? []
    : input.dailyNotes
        .slice(0, 3)
        .map((n) => ({ date: n.date, text: scan(n.text.trim(), 'recentNotes', `daily/${n.date}.md`) }));
  const notesLength = notes.reduce((sum, n) => sum + n.text.length + 16, 0);
  // Memory comes first, but keeps room for a share of the graph and the notes.
  const reserve = Math.min(graph.length + 24, budget * 0.25) + Math.min(notesLength, budget * 0.25);
  const parts: string[] = [];
  const sections: string[] = [];
  const json: ContextBlockJson = {
    budgetTokens: input.budgetTokens,
    tokensUsed: 0,
    sections,
    memory: { included: false, truncated: false, droppedEntries: 0 },
    knowledgeGraph: { entities: [] },
    recentNotes: [],
    withheld,
  };
  let left = budget;
  if (input.memoryMd?.trim()) {
    const safe = scan(input.memoryMd, 'memory', 'MEMORY.md').replace(/^# Memory[ \t]*\n+/, '');
    const fitted = fitMemory(safe, Math.max(0, left - reserve - 10));
    parts.push(`# Memory\n\n${fitted.text}`);
    sections.push('memory');
    json.memory = { included: true, truncated: fitted.truncated, droppedEntries: fitted.droppedEntries };
    left -= parts[parts.length - 1].length + 2;
  }
  if (graph && left > 60) {
    const fitted = fitText(graph, left - 22);
    parts.push(`# Knowledge Graph\n\n${fitted.text}`);
    sections.push('knowledgeGraph');
    json.knowledgeGraph.entities = input.entities;
    left -= parts[parts.length - 1].length + 2;
  }
  const noteParts: string[] = [];
  for (const n of notes) {
    if (left < 80) break;
    const fitted = fitText(`## ${n.date}\n\n${n.text}`, left - 20);
    noteParts.push(fitted.text);
    json.recentNotes.push({ date: n.date, truncated: fitted.truncated });
    left -= fitted.text.length + 2;
  }
  if (noteParts.length) {
    parts.push(`# Recent Notes\n\n${noteParts.join('\n\n')}`);
    sections.push('recentNotes');
  }
  const text = parts.length ? parts.join('\n\n') + '\n' : '';
  json.tokensUsed = Math.ceil(text.length / CHARS_PER_TOKEN);
  return { text, json };
}
