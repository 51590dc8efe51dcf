// One memory: its text rendered as markdown (safely), the front matter as a table, its triples, the
// memories linking to it, problems, and its history from git with each commit's trailers.
import { get } from '../api.js';
import { append, h, route, when } from '../dom.js';
import { renderMarkdown, stripFrontMatter } from '../markdown.js';
import type { View } from '../view.js';

interface Page {
  memory: {
    id: string;
    title: string;
    status: string;
    kind: string;
    trust: number;
    text: string;
    supersededBy?: string;
    problemList: { code: string; message: string; line: number; severity: string }[];
  };
  frontMatter: Record<string, unknown>;
  triples: { s: string; p: string; o: string; from?: string; until?: string }[];
  backlinks: { id: string; title: string; status: string }[];
  history: {
    timestamp: string;
    command: string;
    result: string;
    author: string | null;
    agentName: string | null;
    proposedBy: string | null;
    reason: string | null;
    subject: string;
    commit: string | null;
    trailers: Record<string, string>;
  }[];
}

function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) return v.join(', ');
  return JSON.stringify(v);
}

export const memoryView: View = {
  title: 'Memory',
  async render(ctx) {
    if (!ctx.arg)
      return h('p', null, 'No memory chosen. ', h('a', { href: route('memories') }, 'See all memories'));
    const page = await get<Page>('memory', { id: ctx.arg });
    const m = page.memory;
    const section = h('section', { 'aria-labelledby': 'memory-h', class: 'memory' });
    append(section, [
      h('h1', { id: 'memory-h' }, m.title || m.id),
      h(
        'p',
        { class: 'meta-line' },
        h('span', { class: `badge ${m.status}` }, m.status),
        ` ${m.kind} · trust ${m.trust.toFixed(2)} · `,
        h('code', null, m.id),
        m.status === 'candidate' ? [' · ', h('a', { href: route('review', m.id) }, 'Review it')] : null,
        m.supersededBy
          ? [' · superseded by ', h('a', { href: route('memory', m.supersededBy) }, m.supersededBy)]
          : null,
      ),
      h('h2', null, 'Front matter'),
      h(
        'table',
        { class: 'kv' },
        h(
          'tbody',
          null,
          Object.entries(page.frontMatter)
            .filter(([k]) => k !== 'triples')
            .map(([k, v]) => h('tr', null, h('th', { scope: 'row' }, k), h('td', null, valueText(v)))),
        ),
      ),
      h('h2', null, 'Triples'),
      page.triples.length
        ? h(
            'table',
            { class: 'list' },
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                ['Subject', 'Predicate', 'Object', 'From', 'Until'].map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            h(
              'tbody',
              null,
              page.triples.map((t) =>
                h(
                  'tr',
                  null,
                  h('td', null, t.s),
                  h('td', null, t.p),
                  h('td', null, t.o),
                  h('td', null, t.from ?? ''),
                  h('td', null, t.until ?? ''),
                ),
              ),
            ),
          )
        : h('p', null, 'None.'),
      h('h2', null, 'Text'),
      h('div', { class: 'body' }, renderMarkdown(stripFrontMatter(m.text))),
      m.problemList.length
        ? [
            h('h2', null, 'Problems'),
            h(
              'ul',
              null,
              m.problemList.map((p) =>
                h('li', null, `line ${p.line}: ${p.severity} ${p.code}: ${p.message}`),
              ),
            ),
          ]
        : null,
      h('h2', null, 'Linked from'),
      page.backlinks.length
        ? h(
            'ul',
            null,
            page.backlinks.map((b) =>
              h('li', null, h('a', { href: route('memory', b.id) }, b.title || b.id), ` (${b.status})`),
            ),
          )
        : h('p', null, 'No memory links here.'),
      h('h2', null, 'History'),
      page.history.length
        ? h(
            'ol',
            { class: 'timeline' },
            page.history.map((e) =>
              h(
                'li',
                null,
                h(
                  'div',
                  null,
                  when(e.timestamp),
                  ' ',
                  h('strong', null, e.command),
                  ` (${e.result})`,
                  e.author ? ` by ${e.author}` : '',
                  e.agentName ? ` · agent ${e.agentName}` : '',
                  e.proposedBy ? ` · proposed by ${e.proposedBy}` : '',
                ),
                h('div', null, e.subject),
                e.reason ? h('div', null, 'Why: ', e.reason) : null,
                e.commit
                  ? h('div', { class: 'sub' }, 'commit ', h('code', null, e.commit.slice(0, 10)))
                  : null,
                Object.keys(e.trailers).length
                  ? h(
                      'dl',
                      { class: 'trailers' },
                      Object.entries(e.trailers).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
                    )
                  : null,
              ),
            ),
          )
        : h('p', null, 'No history on main yet.'),
    ]);
    return section;
  },
};
