// Memories: every memory with status, trust, kind and tags, filtered in the page (the list comes
// whole from `cairn list`); long lists are shown a page at a time so 10,000 memories stay quick.
import { get } from '../api.js';
import { h, route, when } from '../dom.js';
import type { View } from '../view.js';

interface Summary {
  id: string;
  title: string;
  kind: string;
  status: string;
  trust: number;
  tags: string[];
  updated?: string;
  agent?: string;
  problems: number;
}

const PAGE = 200;

export const memoriesView: View = {
  title: 'Memories',
  async render(ctx) {
    const { memories } = await get<{ memories: Summary[] }>('memories');
    const filter = {
      text: ctx.params.get('q') ?? '',
      status: ctx.params.get('status') ?? '',
      kind: ctx.params.get('kind') ?? '',
      tag: ctx.params.get('tag') ?? '',
      trust: ctx.params.get('trust') ?? '',
    };
    let limit = PAGE;
    const options = (values: string[]) =>
      ['', ...[...new Set(values)].sort()].map((v) => h('option', { value: v }, v || 'any'));
    const text = h('input', { type: 'search', id: 'f-text', value: filter.text, placeholder: 'id or title' });
    const status = h('select', { id: 'f-status' }, options(memories.map((m) => m.status)));
    const kind = h('select', { id: 'f-kind' }, options(memories.map((m) => m.kind)));
    const tag = h('select', { id: 'f-tag' }, options(memories.flatMap((m) => m.tags)));
    const trust = h('input', {
      type: 'number',
      id: 'f-trust',
      min: 0,
      max: 1,
      step: 0.05,
      value: filter.trust,
      class: 'narrow',
    });
    status.value = filter.status;
    kind.value = filter.kind;
    tag.value = filter.tag;
    const count = h('p', { 'aria-live': 'polite' });
    const body = h('tbody');
    const more = h('button', { type: 'button', onclick: () => ((limit += PAGE), draw()) }, 'Show more');

    function draw(): void {
      const q = text.value.toLowerCase();
      const rows = memories.filter(
        (m) =>
          (!q || m.id.toLowerCase().includes(q) || m.title.toLowerCase().includes(q)) &&
          (!status.value || m.status === status.value) &&
          (!kind.value || m.kind === kind.value) &&
          (!tag.value || m.tags.includes(tag.value)) &&
          (!trust.value || m.trust >= Number(trust.value)),
      );
      count.textContent = `${rows.length} of ${memories.length} memories`;
      body.replaceChildren(
        ...rows
          .slice(0, limit)
          .map((m) =>
            h(
              'tr',
              null,
              h(
                'td',
                null,
                h('a', { href: route('memory', m.id) }, m.title || m.id),
                h('div', { class: 'sub' }, m.id),
              ),
              h('td', null, h('span', { class: `badge ${m.status}` }, m.status)),
              h('td', null, m.kind),
              h('td', { class: 'num' }, m.trust.toFixed(2)),
              h('td', null, m.tags.join(', ')),
              h('td', null, when(m.updated)),
            ),
          ),
      );
      more.hidden = rows.length <= limit;
    }
    for (const el of [text, status, kind, tag, trust])
      el.addEventListener('input', () => {
        limit = PAGE;
        ctx.keep({
          q: text.value,
          status: status.value,
          kind: kind.value,
          tag: tag.value,
          trust: trust.value,
        });
        draw();
      });
    draw();
    return h(
      'section',
      { 'aria-labelledby': 'memories-h' },
      h('h1', { id: 'memories-h' }, 'Memories'),
      h(
        'form',
        {
          class: 'filters',
          role: 'search',
          'aria-label': 'Filter memories',
          onsubmit: (e: Event) => e.preventDefault(),
        },
        h('label', { for: 'f-text' }, 'Filter'),
        text,
        h('label', { for: 'f-status' }, 'Status'),
        status,
        h('label', { for: 'f-kind' }, 'Kind'),
        kind,
        h('label', { for: 'f-tag' }, 'Tag'),
        tag,
        h('label', { for: 'f-trust' }, 'Trust at least'),
        trust,
      ),
      count,
      h(
        'table',
        { class: 'list' },
        h('caption', { class: 'sr-only' }, 'Memories'),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Title', 'Status', 'Kind', 'Trust', 'Tags', 'Updated'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        body,
      ),
      more,
    );
  },
};
