// Building the page without HTML strings: every piece of memory text becomes a text node, so a
// `<script>` or an `onerror=` in a memory is shown as the characters it is and never runs. There is
// no innerHTML anywhere in this front end; links get their address through safeHref only.

type Child = Node | string | number | null | undefined | false | Child[];

export interface Attrs {
  [name: string]: string | number | boolean | null | undefined | EventListener;
}

/** `h('button', { class: 'x', onclick: f, 'aria-label': 'Accept' }, 'Accept')`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value as EventListener);
    } else if (name === 'href') {
      el.setAttribute('href', safeHref(String(value)));
    } else if (name === 'value' && 'value' in el) {
      (el as HTMLInputElement).value = String(value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else
      parent.appendChild(
        typeof c === 'string' || typeof c === 'number' ? document.createTextNode(visible(String(c))) : c,
      );
  }
}

/** Control characters (other than tab and newline) shown as a visible escape, never interpreted. */
export function visible(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Only links that stay on this page (`#/...`) or go to http(s) and mailto addresses; anything else
 * (`javascript:`, `data:`, `vbscript:`, a relative path that could reach the API) becomes `#`.
 */
export function safeHref(href: string): string {
  const trimmed = href.trim();
  if (trimmed.startsWith('#/')) return trimmed;
  try {
    const u = new URL(trimmed);
    if (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:') return u.href;
  } catch {
    // not an absolute URL
  }
  return '#';
}

/** A link to a page of this app: `#/memory/ID` etc., the id always encoded. */
export function route(view: string, arg?: string, params?: Record<string, string>): string {
  const q = params && Object.keys(params).length ? `?${new URLSearchParams(params)}` : '';
  return `#/${view}${arg !== undefined ? `/${encodeURIComponent(arg)}` : ''}${q}`;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** A date as people read it, in their time zone; the exact ISO time in the title. */
export function when(iso: string | null | undefined): HTMLElement {
  if (!iso) return h('span', null, '—');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return h('span', null, iso);
  return h(
    'time',
    { datetime: iso, title: iso },
    d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }),
  );
}
