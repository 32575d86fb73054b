// Dashboard of the knowledge base the page shows: counts, recent uploads, top topics, recent questions, health.

import { api, currentKb } from '../api.js';
import * as data from '../data.js';
import { empty, errorBox, fileIcon, fill, fmtRelative, h, link, loading } from '../dom.js';
import { t } from '../i18n.js';

export function render(root) {
  const stats = h('div', { class: 'stats', id: 'dash-stats' });
  const recent = h('div', {}, loading());
  const topTopics = h('div', {}, loading());
  const questions = h('div', {}, loading());
  const health = h('div', {}, loading());
  root.append(
    h('div', { class: 'page-head' },
      h('div', {}, h('h1', {}, t('dash.title')), h('div', { class: 'muted', id: 'dash-base' },
        currentKb() ? t('dash.base', { name: currentKb() }) : t('app.tagline'))),
      h('div', { class: 'toolbar' },
        h('a', { class: 'btn', href: '#/documents' }, t('dash.toDocuments')),
        h('a', { class: 'btn btn-primary', href: '#/ask' }, t('dash.toAsk')))),
    stats,
    h('div', { class: 'grid grid-2' },
      h('section', { class: 'card', id: 'dash-recent' }, h('div', { class: 'card-head' }, h('h2', {}, t('dash.recent')),
        h('a', { href: '#/documents', class: 'small' }, t('nav.documents'))), recent),
      h('section', { class: 'card', id: 'dash-topics' }, h('div', { class: 'card-head' }, h('h2', {}, t('dash.topTopics')),
        h('a', { href: '#/topics', class: 'small' }, t('nav.topics'))), topTopics),
      h('section', { class: 'card', id: 'dash-questions' }, h('div', { class: 'card-head' },
        h('h2', {}, t('dash.recentQuestions')), h('a', { href: '#/ask', class: 'small' }, t('nav.ask'))), questions),
      h('section', { class: 'card', id: 'dash-health' }, h('div', { class: 'card-head' }, h('h2', {}, t('dash.health'))), health)),
  );

  const counts = { documents: null, versions: null, sections: null, topics: null, questions: null, queue: null };
  const drawStats = () => fill(stats, ...[
    ['documents', 'dash.documents'], ['versions', 'dash.versions'], ['sections', 'dash.sections'],
    ['topics', 'dash.topics'], ['questions', 'dash.questions'], ['queue', 'dash.queue'],
  ].filter(([k]) => counts[k] !== undefined).map(([k, label]) => h('div', { class: 'stat', dataset: { stat: k } },
    h('div', { class: 'value' }, counts[k] === null ? '–' : String(counts[k])), h('div', { class: 'label' }, t(label)))));
  drawStats();

  data.documents({ limit: 1000 }).then(({ documents: docs, total }) => {
    counts.documents = total ?? docs.length;
    counts.versions = docs.reduce((n, d) => n + (Number(d.version_count) || Number(d.current_version) || 1), 0);
    counts.sections = docs.reduce((n, d) => n + (Number(d.node_count) || 0), 0);
    drawStats();
    const latest = docs.slice().sort((a, b) => String(b.updated_at).localeCompare(String(a.updated_at))).slice(0, 6);
    fill(recent, latest.length ? h('ul', { class: 'list' }, latest.map((d) => h('li', {},
      fileIcon(d.file_type),
      h('a', { class: 'grow', href: link(['documents', d.id]), title: d.filename }, d.filename),
      h('span', { class: 'muted small' }, `v${d.current_version}`),
      h('span', { class: 'muted small' }, fmtRelative(d.updated_at)))))
      : h('div', {}, empty(t('dash.empty')), h('a', { class: 'btn btn-primary', href: '#/documents' }, t('dash.toDocuments'))));
  }).catch((err) => fill(recent, errorBox(err)));

  data.topics().then((list) => {
    counts.topics = list.length;
    drawStats();
    const top = list.slice(0, 10);
    const most = Math.max(1, ...top.map(data.topicCount));
    fill(topTopics, top.length ? h('ul', { class: 'list' }, top.map((tp) => h('li', {},
      h('a', { class: 'grow', href: link(['topics', tp.id]) }, tp.name),
      h('span', { class: 'relbar', title: String(data.topicCount(tp)) },
        h('span', { style: { width: `${Math.round((100 * data.topicCount(tp)) / most)}%` } })),
      h('span', { class: 'muted small' }, String(data.topicCount(tp))))))
      : empty(t('topics.empty')));
  }).catch((err) => {
    counts.topics = undefined;
    drawStats();
    fill(topTopics, err.status === 404 ? empty(t('common.unavailable')) : errorBox(err));
  });

  api('/api/qa/history', { query: { limit: 500 } }).then((reply) => {
    const all = data.listOf(reply, 'history');
    counts.questions = all.length >= 500 ? '500+' : all.length;
    drawStats();
    const rows = all.slice(0, 6);
    fill(questions, rows.length ? h('ul', { class: 'list' }, rows.map((r) => h('li', {},
      h('a', { class: 'grow', href: link(['ask'], { q: r.question }), title: r.question }, r.question),
      h('span', { class: 'muted small' }, fmtRelative(r.created_at)))))
      : empty());
  }).catch((err) => fill(questions, errorBox(err)));

  api('/api/health').then((hl) => {
    const queue = hl.queue_depth ?? (hl.queue && (hl.queue.depth ?? hl.queue.pending));
    counts.queue = typeof queue === 'number' ? queue : undefined;
    drawStats();
    const ok = hl.status === 'ok';
    const db = hl.database || {};
    const models = hl.models || {};
    fill(health, h('dl', { class: 'kv' },
      h('dt', {}, t('health.status')),
      h('dd', {}, h('span', { class: `badge ${ok ? 'badge-high' : 'badge-medium'}` }, t(ok ? 'health.ok' : 'health.degraded'))),
      h('dt', {}, t('health.database')),
      h('dd', {}, `${t(db.embedded ? 'health.embedded' : 'health.external')} · ${t(db.ok ? 'health.ok' : 'health.down')}`),
      h('dt', {}, t('health.chat')),
      h('dd', {}, models.offline || !models.chat ? t('health.offline') : String(models.chat)),
      h('dt', {}, t('health.embeddings')), h('dd', {}, String(models.embeddings || '–')),
      h('dt', {}, t('health.version')), h('dd', {}, String(hl.version || '–')),
      h('dt', {}, t('health.filling')), h('dd', {}, hl.embeddings && hl.embeddings.pending_passages
        ? t('health.fillingValue', { n: hl.embeddings.pending_passages, d: hl.embeddings.documents_filling })
        : t('health.fillingNone'))));
  }).catch((err) => fill(health, errorBox(err)));
}
