// The one place Cairn talks to a language model: an OpenAI-compatible chat endpoint on this machine
// (Ollama, llama.cpp's server, LM Studio), named in cairn.yaml `learn.endpoint`. The address is
// checked again here (loopback only, no redirects), so no other host is ever called.
import { CairnError } from '../core/errors.js';
import { isLoopbackUrl } from '../core/config.js';
import type { ChatMessage } from '../core/learn/model-prompt.js';

export async function askLocalModel(
  endpoint: string,
  model: string,
  messages: ChatMessage[],
  opts: { timeoutMs?: number } = {},
): Promise<string> {
  if (!isLoopbackUrl(endpoint))
    throw new CairnError(
      'CONFIG_INVALID',
      `learn.endpoint ${endpoint} is not on this machine; Cairn calls no other host`,
    );
  const url = `${endpoint.replace(/\/+$/, '')}/chat/completions`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages, temperature: 0, stream: false }),
      redirect: 'error',
      signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
    });
  } catch (e) {
    throw new CairnError(
      'NETWORK_UNAVAILABLE',
      `the local model at ${endpoint} did not answer: ${(e as Error).message}`,
    );
  }
  if (!res.ok)
    throw new CairnError('NETWORK_UNAVAILABLE', `the local model at ${endpoint} answered HTTP ${res.status}`);
  const body = (await res.json().catch(() => null)) as {
    choices?: { message?: { content?: unknown } }[];
  } | null;
  const content = body?.choices?.[0]?.message?.content;
  if (typeof content !== 'string')
    throw new CairnError('NETWORK_UNAVAILABLE', `the local model at ${endpoint} gave no chat completion`);
  return content;
}
