// Topics: a cloud and cards; a topic opens the documents that carry it.

import { api } from '../api.js';
import * as data from '../data.js';
import { empty, errorBox, fileIcon, fill, fmtRelative, h, link, loading } from '../dom.js';
import { lang, t } from '../i18n.js';

export function render(root, { id }) {
  if (id) return renderTopic(root, id);
  const body = h('div', {}, loading());
  root.append(h('div', { class: 'page-head' }, h('h1', {}, t('topics.title'))), body);
  data.topics().then((list) => {
    if (!list.length) {
      fill(body, h('div', { class: 'card' }, empty(t('topics.empty'))));
      return;
    }
    const most = Math.max(1, ...list.map(data.topicCount));
    const cloud = h('div', { class: 'cloud card', id: 'topic-cloud' }, list.slice().sort((a, b) => String(a.name).localeCompare(String(b.name)))
      .map((tp) => h('a', { href: link(['topics', tp.id]), style: { fontSize: `${0.9 + (1.1 * data.topicCount(tp)) / most}rem` },
        title: countText(data.topicCount(tp)) }, tp.name)));
    const cards = h('div', { class: 'topic-grid', id: 'topic-cards' }, list.map((tp) => topicCard(tp, most)));
    fill(body, cloud, cards);
  }).catch((err) => fill(body, errorBox(err)));
  return null;
}

function countText(n) {
  return n === 1 ? t('topics.oneDocument') : t('topics.documents', { n });
}

function keywordsOf(topic) {
  const kw = topic.keywords || topic.terms || [];
  return Array.isArray(kw) ? kw.slice(0, 6).map((k) => (typeof k === 'string' ? k : k.term || k.name || '')).filter(Boolean) : [];
}

function topicCard(tp, most) {
  const n = data.topicCount(tp);
  const kw = keywordsOf(tp);
  return h('a', { class: 'topic-card', href: link(['topics', tp.id]), dataset: { topic: tp.name } },
    h('span', { class: 'topic-name' }, tp.name),
    h('span', { class: 'muted small' }, countText(n)),
    h('span', { class: 'meter' }, h('span', { style: { width: `${Math.max(6, Math.round((100 * n) / most))}%` } })),
    kw.length ? h('span', { class: 'keywords' }, kw.join(' · ')) : null,
    describe(tp) ? h('span', { class: 'keywords topic-about', title: describe(tp) }, describe(tp)) : null);
}

/** The topic's one-line description in the page's language. */
function describe(tp) {
  return (tp.descriptions && tp.descriptions[lang()]) || '';
}

function renderTopic(root, id) {
  const head = h('div', { class: 'page-head' }, h('h1', {}, t('topics.title')));
  const body = h('section', { class: 'card' }, loading());
  root.append(h('p', {}, h('a', { href: '#/topics' }, `← ${t('topics.all')}`)), head, body);
  api(`/api/topics/${encodeURIComponent(id)}`).then((tp) => {
    const docs = data.listOf(tp, 'documents');
    fill(head,
      h('div', {}, h('h1', {}, tp.name || id), h('div', { class: 'muted' }, countText(tp.document_count ?? docs.length),
        describe(tp) ? ` · ${describe(tp)}` : '',
        tp.merged_names && tp.merged_names.length ? ` · ${tp.merged_names.join(', ')}` : '')),
      h('a', { class: 'btn btn-primary', href: link(['ask'], { topic: tp.name }) }, t('topics.askAbout')));
    fill(body, docs.length ? h('ul', { class: 'list', id: 'topic-documents' }, docs.map((d) => h('li', {},
      fileIcon(d.file_type),
      h('a', { class: 'grow', href: link(['documents', d.id]), title: d.filename }, d.filename),
      d.confidence !== undefined && d.confidence !== null
        ? h('span', { class: 'muted small', title: 'confidence' }, `${Math.round(Number(d.confidence) * 100)}%`) : null,
      d.updated_at ? h('span', { class: 'muted small' }, fmtRelative(d.updated_at)) : null))) : empty());
  }).catch((err) => fill(body, err.status === 404 ? empty(t('common.none')) : errorBox(err)));
  return null;
}
