// Search: the store's hybrid search (the same service as `cairn search`), with snippets; the page
// says which provider answered (a model, or keywords only) and when the answer is partial.
import { get } from '../api.js';
import { append, h, route } from '../dom.js';
import type { View } from '../view.js';

interface Answer {
  /** topicId: the memory id, or the path for MEMORY.md and daily notes. */
  entries: {
    topicId: string;
    topic: string;
    path: string;
    lines: [number, number];
    score: number;
    status: string;
    uncommitted?: true;
  }[];
  results: { path: string; snippet: string }[];
  totalResults: number;
  provider: string;
  vector_enabled: boolean;
  partial: boolean;
  withheld: number;
  warnings: string[];
}

export const searchView: View = {
  title: 'Search',
  async render(ctx) {
    const q = ctx.params.get('q') ?? '';
    const input = h('input', {
      type: 'search',
      id: 'q',
      name: 'q',
      value: q,
      required: true,
      maxlength: 500,
    });
    const withCandidates = ctx.params.get('candidates') === '1';
    const candidates = h('input', { type: 'checkbox', id: 'q-candidates', checked: withCandidates });
    const form = h(
      'form',
      {
        role: 'search',
        'aria-label': 'Search memories',
        onsubmit: (e: Event) => {
          e.preventDefault();
          const params: Record<string, string> = { q: input.value };
          if (candidates.checked) params.candidates = '1';
          location.hash = route('search', undefined, params);
        },
      },
      h('label', { for: 'q' }, 'Search memories'),
      input,
      h('button', { type: 'submit' }, 'Search'),
      h('span', { class: 'check' }, candidates, h('label', { for: 'q-candidates' }, 'include candidates')),
    );
    const section = h(
      'section',
      { 'aria-labelledby': 'search-h' },
      h('h1', { id: 'search-h' }, 'Search'),
      form,
    );
    if (!q.trim()) return section;
    const a = await get<Answer>('search', withCandidates ? { q, candidates: '1' } : { q });
    const snippets = new Map(a.results.map((r) => [r.path, r.snippet]));
    append(section, [
      h(
        'p',
        { class: 'provider' },
        `Provider: ${a.provider}`,
        a.vector_enabled ? ' (keywords and meaning)' : ' (keywords only)',
        ` · ${a.totalResults} match${a.totalResults === 1 ? '' : 'es'}`,
        a.withheld ? ` · ${a.withheld} flagged passage${a.withheld === 1 ? '' : 's'} withheld` : '',
      ),
      a.partial
        ? h('p', { class: 'warning', role: 'note' }, 'Partial answer: the index is still being built.')
        : null,
      a.warnings.length
        ? h(
            'ul',
            { class: 'warnings' },
            a.warnings.map((w) => h('li', null, w)),
          )
        : null,
      a.entries.length
        ? h(
            'ol',
            { class: 'results' },
            a.entries.map((e) =>
              h(
                'li',
                null,
                e.path.startsWith('memories/')
                  ? h('a', { href: route('memory', e.topicId) }, e.topic || e.topicId)
                  : h('strong', null, e.topic || e.path),
                ` `,
                h('span', { class: `badge ${e.status}` }, e.status),
                h(
                  'span',
                  { class: 'sub' },
                  ` ${e.path}:${e.lines[0]}-${e.lines[1]} · score ${e.score.toFixed(3)}`,
                ),
                e.uncommitted ? h('span', { class: 'sub' }, ' · edited, not committed') : null,
                h('p', { class: 'snippet' }, snippets.get(e.path) ?? ''),
              ),
            ),
          )
        : h('p', null, 'Nothing matched.'),
    ]);
    return section;
  },
};
