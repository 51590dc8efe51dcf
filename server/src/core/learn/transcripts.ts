// Agent transcripts as one list of messages, whatever tool wrote them. One adapter per format; each
// keeps a stable id per message (the watermark key) and marks what must not be learned from:
// tool calls and results, system and meta messages, and an agent's own background runs.
import { createHash } from 'node:crypto';
import { CairnError } from '../errors.js';

export type Speaker = 'user' | 'assistant' | 'other';

export interface TranscriptMessage {
  /** Stable across runs: the tool's own message id, else its place and a digest of what it says. */
  id: string;
  role: Speaker;
  text: string;
  /** Background, sidechain, meta or tool traffic: never learned from. */
  background: boolean;
}

export interface Transcript {
  /** The conversation's own id when the format has one (ChatGPT export holds many). */
  key?: string;
  title?: string;
  messages: TranscriptMessage[];
}

export const TRANSCRIPT_FORMATS = ['claude-code', 'copilot', 'chat-json', 'chatgpt', 'markdown'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function role(v: unknown): Speaker {
  const r = str(v).toLowerCase();
  if (r === 'user' || r === 'human') return 'user';
  if (r === 'assistant' || r === 'model' || r === 'ai' || r === 'bot') return 'assistant';
  return 'other';
}

/** Text parts of a message content: a string, or an array of `{type:'text', text}` parts. */
function textOf(content: unknown): { text: string; tool: boolean } {
  if (typeof content === 'string') return { text: content, tool: false };
  if (!Array.isArray(content)) return { text: '', tool: false };
  let tool = false;
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') parts.push(part);
    else if (isObj(part)) {
      if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
      else if (String(part.type ?? '').startsWith('tool')) tool = true;
    }
  }
  return { text: parts.join('\n'), tool: tool && parts.length === 0 };
}

/**
 * The id of a message its format gives none. Its place alone ("line-3") named the messages of every
 * chat piped in on stdin, or of two files called chat.md, alike: the second chat's messages were
 * taken as read and never learned. A digest of what it says tells them apart, and a log that grows
 * keeps the ids of the messages it already had.
 */
function placeId(place: string, role: Speaker, text: string): string {
  return `${place}:${createHash('sha256').update(`${role}\n${text}`).digest('hex').slice(0, 16)}`;
}

/** Harness-injected text (command wrappers, reminders) is not the user speaking. */
const INJECTED = /^\s*<(command-[a-z-]+|system-reminder|local-command-stdout|user-prompt-submit-hook)\b/;

/** Claude Code session files: one JSON object per line (`type`, `uuid`, `message`, `isSidechain`). */
function claudeCode(text: string): Transcript {
  const messages: TranscriptMessage[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new CairnError(
        'INVALID_PAYLOAD',
        `line ${i + 1}: not JSON (a Claude Code session file has one JSON object per line)`,
        { field: 'transcript' },
      );
    }
    if (!isObj(row) || !isObj(row.message)) return;
    const { text: body, tool } = textOf(row.message.content);
    const r = role(row.message.role ?? row.type);
    messages.push({
      id: str(row.uuid) || placeId(`line-${i + 1}`, r, body),
      role: r,
      text: body,
      background: Boolean(row.isSidechain || row.isMeta || tool || INJECTED.test(body) || r === 'other'),
    });
  });
  return { messages };
}

/** VS Code Copilot chat export: `{requests: [{requestId, message: {text}, response: [{value}]}]}`. */
function copilot(data: Json): Transcript {
  const messages: TranscriptMessage[] = [];
  const requests = Array.isArray(data.requests) ? data.requests : [];
  requests.forEach((req, i) => {
    if (!isObj(req)) return;
    const asked = isObj(req.message) ? str(req.message.text) : '';
    const id = str(req.requestId) || placeId(`request-${i}`, 'user', asked);
    messages.push({ id: `${id}:user`, role: 'user', text: asked, background: false });
    const answer = (Array.isArray(req.response) ? req.response : [])
      .map((r) => (isObj(r) ? str(r.value) : ''))
      .join('');
    messages.push({ id: `${id}:assistant`, role: 'assistant', text: answer, background: false });
  });
  return { key: str(data.sessionId) || undefined, messages };
}

/** Cursor / Continue-style JSON: `{messages|history: [{id?, role, content} | {message: {...}}]}`. */
function chatJson(data: Json | unknown[]): Transcript {
  const list = Array.isArray(data)
    ? data
    : Array.isArray(data.messages)
      ? data.messages
      : Array.isArray(data.history)
        ? data.history
        : null;
  if (!list)
    throw new CairnError('INVALID_PAYLOAD', 'a chat JSON transcript needs a "messages" or "history" array', {
      field: 'transcript',
    });
  const messages: TranscriptMessage[] = [];
  list.forEach((item, i) => {
    const m = isObj(item) && isObj(item.message) ? item.message : item;
    if (!isObj(m)) return;
    const { text, tool } = textOf(m.content);
    const r = role(m.role);
    messages.push({
      id: str(m.id) || placeId(`message-${i}`, r, text),
      role: r,
      text,
      background: tool || r === 'other',
    });
  });
  return { key: isObj(data) ? str(data.id) || str(data.sessionId) || undefined : undefined, messages };
}

/** ChatGPT's data export (`conversations.json`): conversations with a `mapping` of message nodes. */
function chatgpt(data: unknown[]): Transcript[] {
  return data.filter(isObj).map((conv, ci) => {
    const nodes = isObj(conv.mapping) ? Object.values(conv.mapping) : [];
    const rows = nodes
      .map((n) => (isObj(n) && isObj(n.message) ? n.message : null))
      .filter((m): m is Json => m !== null)
      .sort((a, b) => Number(a.create_time ?? 0) - Number(b.create_time ?? 0));
    const messages = rows.map((m, i) => {
      const content = isObj(m.content) ? m.content : {};
      const parts = Array.isArray(content.parts) ? content.parts.filter((p) => typeof p === 'string') : [];
      const r = role(isObj(m.author) ? m.author.role : '');
      const hidden = isObj(m.metadata) && m.metadata.is_visually_hidden_from_conversation === true;
      const text = parts.join('\n');
      return {
        id: str(m.id) || placeId(`message-${i}`, r, text),
        role: r,
        text,
        background: r === 'other' || hidden || content.content_type !== 'text',
      };
    });
    return {
      key: str(conv.id) || str(conv.conversation_id) || `conversation-${ci}`,
      title: str(conv.title) || undefined,
      messages,
    };
  });
}

const SPEAKER_LINE =
  /^(?:#{1,6}\s*|\*\*)?(user|human|you|me|assistant|ai|claude|copilot|model|system|tool)(?:\*\*)?\s*:?(?:\*\*)?\s*(.*)$/i;

/** A markdown chat log: blocks that start with `User:`, `**Assistant:**` or `## User`. */
function markdown(text: string): Transcript {
  const messages: TranscriptMessage[] = [];
  let current: { role: Speaker; start: number; lines: string[] } | null = null;
  const flush = () => {
    if (!current || !current.lines.join('').trim()) return;
    const said = current.lines.join('\n').trim();
    messages.push({
      id: placeId(`line-${current.start}`, current.role, said),
      role: current.role,
      text: said,
      background: current.role === 'other',
    });
  };
  text.split('\n').forEach((line, i) => {
    const m = SPEAKER_LINE.exec(line);
    if (m && (/:/.test(line) || /^#/.test(line))) {
      flush();
      const who = m[1].toLowerCase();
      const r: Speaker = ['user', 'human', 'you', 'me'].includes(who)
        ? 'user'
        : ['system', 'tool'].includes(who)
          ? 'other'
          : 'assistant';
      current = { role: r, start: i + 1, lines: m[2] ? [m[2]] : [] };
    } else if (current) current.lines.push(line);
  });
  flush();
  return { messages };
}

/** Guesses the format from the text: JSON shapes first, then JSON lines, then markdown. */
export function detectTranscriptFormat(text: string): TranscriptFormat {
  const head = text.trimStart();
  if (head.startsWith('[') || head.startsWith('{')) {
    try {
      const data = JSON.parse(text) as unknown;
      if (Array.isArray(data))
        return data.some((c) => isObj(c) && isObj(c.mapping)) ? 'chatgpt' : 'chat-json';
      if (isObj(data) && Array.isArray(data.requests)) return 'copilot';
      // A Claude Code session of one line is one JSON object: a row with its `message`.
      if (isObj(data) && isObj(data.message)) return 'claude-code';
      return 'chat-json';
    } catch {
      if (head.startsWith('{')) return 'claude-code';
    }
  }
  return 'markdown';
}

/** The transcripts in one file (a ChatGPT export holds many conversations). */
export function parseTranscripts(
  text: string,
  format: TranscriptFormat = detectTranscriptFormat(text),
): Transcript[] {
  const json = () => {
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new CairnError(
        'INVALID_PAYLOAD',
        `not valid JSON for --format ${format}: ${(e as Error).message}`,
        { field: 'transcript' },
      );
    }
  };
  switch (format) {
    case 'claude-code':
      return [claudeCode(text)];
    case 'copilot': {
      const data = json();
      if (!isObj(data))
        throw new CairnError('INVALID_PAYLOAD', 'a Copilot chat export is a JSON object with "requests"', {
          field: 'transcript',
        });
      return [copilot(data)];
    }
    case 'chat-json':
      return [chatJson(json() as Json)];
    case 'chatgpt': {
      const data = json();
      if (!Array.isArray(data))
        throw new CairnError('INVALID_PAYLOAD', "ChatGPT's conversations.json is a JSON array", {
          field: 'transcript',
        });
      return chatgpt(data);
    }
    case 'markdown':
      return [markdown(text)];
  }
}
