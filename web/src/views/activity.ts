// Activity: the audit trail as a timeline, newest first: stores, accepts, rejects, undos (from git)
// and dropped writes (from .cairn/audit.log), as `cairn log` reads them.
import { get } from '../api.js';
import { h, route, when } from '../dom.js';
import type { View } from '../view.js';

interface Entry {
  timestamp: string;
  command: string;
  result: string;
  id: string | null;
  author: string | null;
  agentName: string | null;
  proposedBy: string | null;
  reason: string | null;
  subject: string;
  commit: string | null;
  source: string;
}

function item(e: Entry): HTMLElement {
  return h(
    'li',
    { class: `event ${e.result}` },
    h(
      'div',
      null,
      when(e.timestamp),
      ' ',
      h('strong', null, e.command),
      ` ${e.result}`,
      e.id ? [' ', h('a', { href: route(e.result === 'candidate' ? 'review' : 'memory', e.id) }, e.id)] : '',
    ),
    h(
      'div',
      { class: 'sub' },
      [
        e.author && `by ${e.author}`,
        e.agentName && `agent ${e.agentName}`,
        e.proposedBy && `proposed by ${e.proposedBy}`,
        e.source === 'audit' ? 'not committed (audit log)' : null,
      ]
        .filter(Boolean)
        .join(' · '),
    ),
    e.reason ? h('div', null, 'Why: ', e.reason) : h('div', null, e.subject),
  );
}

export const activityView: View = {
  title: 'Activity',
  async render(ctx) {
    const { entries } = await get<{ entries: Entry[] }>('activity', { limit: '300' });
    const kinds = [...new Set(entries.map((e) => e.command))].sort();
    const show = h(
      'select',
      { id: 'a-kind' },
      ['', ...kinds].map((k) => h('option', { value: k }, k || 'everything')),
    );
    show.value = ctx.params.get('kind') ?? '';
    const list = h('ol', { class: 'timeline' });
    const draw = () =>
      list.replaceChildren(...entries.filter((e) => !show.value || e.command === show.value).map(item));
    show.addEventListener('input', () => (ctx.keep({ kind: show.value }), draw()));
    draw();
    return h(
      'section',
      { 'aria-labelledby': 'activity-h' },
      h('h1', { id: 'activity-h' }, 'Activity'),
      h('p', { class: 'filters' }, h('label', { for: 'a-kind' }, 'Show'), show),
      entries.length ? list : h('p', null, 'Nothing has happened yet.'),
    );
  },
};
