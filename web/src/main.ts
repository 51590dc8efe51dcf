// The review page's entry: header, navigation, store picker, router, live updates.
//
// HOW TO ADD A VIEW: write web/src/views/NAME.ts exporting a `View` (src/view.ts: a title and an
// async render(ctx) returning an element; build it with dom.ts's h(), never innerHTML), import it
// below and add it to VIEWS and, if it belongs in the navigation, to NAV. Its address is `#/NAME`
// or `#/NAME/ARG` (ctx.arg, decoded) with an optional `?query` (ctx.params).
// HOW TO ADD AN API ROUTE: add "GET /api/NAME" (or POST) to ROUTES in server/src/web/api.ts, one
// ops/ call per route, and call it here with api.ts's get('NAME', params) / post('NAME', body).
// THE GRAPH VIEW lives in web/src/views/graph.ts (helper G replaces the placeholder) and its data
// route is "GET /api/graph" in server/src/web/api.ts (to be wired to ops/graph.ts graphPicture).
import { currentStore, errorText, get, listen, setStore } from './api.js';
import { clear, h, route } from './dom.js';
import type { View, ViewContext } from './view.js';
import { activityView } from './views/activity.js';
import { memoriesView } from './views/memories.js';
import { memoryView } from './views/memory.js';
import { reviewView } from './views/review.js';
import { searchView } from './views/search.js';

const VIEWS: Record<string, View> = {
  review: reviewView,
  memories: memoriesView,
  memory: memoryView,
  search: searchView,
  // cytoscape is most of the bundle: the graph view is its own chunk, fetched when first opened.
  graph: lazyView('Graph', async () => (await import('./views/graph.js')).graphView),
  activity: activityView,
};

function lazyView(title: string, load: () => Promise<View>): View {
  let loaded: Promise<View> | null = null;
  return {
    title,
    async render(ctx) {
      loaded ??= load();
      return (await loaded).render(ctx);
    },
  };
}

const NAV: [string, string][] = [
  ['review', 'Review'],
  ['memories', 'Memories'],
  ['search', 'Search'],
  ['graph', 'Graph'],
  ['activity', 'Activity'],
];

const main = h('main', { id: 'main', tabindex: '-1' });
const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
const stale = h('div', { class: 'stale', hidden: true });
const nav = h('nav', { 'aria-label': 'Views' });
const picker = h('select', { id: 'store-picker' });

function parseHash(): { name: string; arg?: string; params: URLSearchParams } {
  const raw = location.hash.replace(/^#\/?/, '');
  const [pathPart, query = ''] = raw.split('?', 2);
  const [name, ...rest] = pathPart.split('/');
  let arg: string | undefined;
  try {
    arg = rest.length ? decodeURIComponent(rest.join('/')) : undefined;
  } catch {
    arg = undefined;
  }
  return { name: VIEWS[name] ? name : 'review', arg, params: new URLSearchParams(query) };
}

function announce(message: string): void {
  status.textContent = message;
}

let rendering = 0;

async function render(opts: { keepFocus?: boolean } = {}): Promise<void> {
  const ticket = ++rendering;
  const drawn = location.hash;
  const { name, arg, params } = parseHash();
  const view = VIEWS[name];
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.view === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  stale.hidden = true;
  const ctx: ViewContext = {
    arg,
    params,
    announce,
    refresh: () => void render({ keepFocus: true }),
    keep: (next) => {
      const kept = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== ''));
      history.replaceState(null, '', `${location.search}${route(name, arg, kept)}`);
      document.body.dataset.route = location.hash;
    },
  };
  let content: HTMLElement;
  try {
    content = await view.render(ctx);
  } catch (err) {
    content = h(
      'section',
      null,
      h('h1', null, view.title),
      h('p', { class: 'error', role: 'alert' }, errorText(err)),
    );
  }
  if (ticket !== rendering) return; // a newer navigation won
  // A filter changed while this drew (keep() moves the address without a hashchange): the content
  // holds the old filters, so draw again from the address as it is now.
  if (location.hash !== drawn) return render(opts);
  const scroll = window.scrollY;
  const focused = document.activeElement?.id;
  clear(main);
  main.append(content);
  document.title = `${view.title} · Cairn`;
  if (opts.keepFocus) {
    // A redraw (live update, after an action) keeps the reader's place and the keyboard focus.
    window.scrollTo(0, scroll);
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  } else main.focus({ preventScroll: true });
  document.body.dataset.view = name;
  // Tests and tools wait for this: the view drawn is the one the address names.
  document.body.dataset.route = location.hash;
  document.body.dataset.ready = String(ticket);
}

/** A change while someone is typing a reason does not wipe it: the page offers to refresh instead. */
function onStoreChanged(store: number): void {
  if (store !== currentStore()) return;
  const active = document.activeElement;
  const typing =
    (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) &&
    active.value !== '' &&
    active.type !== 'search';
  if (typing) {
    stale.hidden = false;
    return;
  }
  void render({ keepFocus: true });
  announce('The store changed; the page is up to date.');
}

async function start(): Promise<void> {
  const skip = h(
    'a',
    { class: 'skip', href: '#main', onclick: (e: Event) => (e.preventDefault(), main.focus()) },
    'Skip to content',
  );
  for (const [name, label] of NAV) nav.append(h('a', { href: route(name), 'data-view': name }, label));
  clear(stale);
  stale.append(
    'The store changed. ',
    h('button', { type: 'button', onclick: () => void render({ keepFocus: true }) }, 'Refresh'),
  );
  const header = h(
    'header',
    null,
    h('span', { class: 'brand' }, 'Cairn'),
    nav,
    h('span', { class: 'picker' }, h('label', { for: 'store-picker' }, 'Store'), picker),
  );
  document.body.append(skip, header, stale, main, h('footer', null, status));
  try {
    const { stores } = await get<{ stores: { index: number; name: string; root: string }[] }>('stores');
    for (const s of stores) picker.append(h('option', { value: s.index, title: s.root }, s.name));
    picker.value = String(currentStore());
    picker.disabled = stores.length < 2;
    picker.addEventListener('change', () => {
      setStore(Number(picker.value));
      void render();
    });
  } catch (err) {
    announce(errorText(err));
  }
  window.addEventListener('hashchange', () => void render());
  listen(onStoreChanged);
  await render();
}

void start();
