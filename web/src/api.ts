// Talking to `cairn serve`: the token from the page's URL goes in a header on every call (and in
// the query for the event stream, which cannot send headers); the chosen store in the query.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> | null,
  ) {
    super(message);
  }
}

const pageParams = new URLSearchParams(location.search);
const token = pageParams.get('token') ?? '';
let store = Number(pageParams.get('store') ?? '0') || 0;

export function currentStore(): number {
  return store;
}

/** Switches store; the URL keeps the choice so a reload (and a deep link) stays on it. */
export function setStore(index: number): void {
  store = index;
  const params = new URLSearchParams(location.search);
  params.set('store', String(index));
  history.replaceState(null, '', `?${params}${location.hash}`);
}

function apiUrl(path: string, params: Record<string, string> = {}): string {
  const q = new URLSearchParams({ ...params, store: String(store) });
  return `/api/${path}?${q}`;
}

async function answer<T>(res: Response): Promise<T> {
  const body = (await res.json().catch(() => null)) as {
    error?: { code: string; message: string; data?: Record<string, unknown> };
  } | null;
  if (!res.ok) {
    const e = body?.error;
    throw new ApiError(
      res.status,
      e?.code ?? 'HTTP_' + res.status,
      e?.message ?? res.statusText,
      e?.data ?? null,
    );
  }
  return body as T;
}

export async function get<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  return answer<T>(await fetch(apiUrl(path, params), { headers: { 'X-Cairn-Token': token } }));
}

export async function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
  return answer<T>(
    await fetch(apiUrl(path), {
      method: 'POST',
      headers: { 'X-Cairn-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** Calls `onChange(store)` whenever the server says a store changed. */
export function listen(onChange: (store: number) => void): EventSource {
  const events = new EventSource(`/api/events?${new URLSearchParams({ token })}`);
  events.addEventListener('change', (e) => {
    const data = JSON.parse((e as MessageEvent<string>).data) as { store: number };
    onChange(data.store);
  });
  return events;
}

/** What to show a person for a failed call. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}
