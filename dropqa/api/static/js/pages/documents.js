// Documents: drag-and-drop upload with per-file job progress, and the list (search, filters, versions).

import { api, invalidate } from '../api.js';
import * as data from '../data.js';
import { debounce, empty, errorBox, fileIcon, fill, fmtBytes, fmtDate, fmtRelative, h, link, loading, svgIcon, toast } from '../dom.js';
import { errorOf, t } from '../i18n.js';
import * as uploads from '../uploads.js';

const TYPES = ['md', 'txt', 'csv', 'docx', 'pptx', 'xlsx', 'pdf', 'image'];
const PAGE = 25;

export function render(root, { query }) {
  const filters = { q: query.get('q') || '', type: query.get('type') || '', topic: query.get('topic') || '',
    sort: query.get('sort') === 'time' ? 'time' : 'name', offset: 0 };
  const unsubscribe = [];

  // ---- drop zone ----
  const input = h('input', { type: 'file', multiple: true, id: 'file-input', 'aria-label': t('docs.choose') });
  const zone = h('label', { class: 'dropzone', id: 'dropzone', for: 'file-input' },
    dropIcon(),
    h('span', { class: 'big' }, t('docs.drop')),
    h('span', { class: 'muted' }, `${t('docs.dropOr')} `, h('span', { class: 'btn btn-small btn-primary' }, t('docs.choose'))),
    h('span', { class: 'muted small' }, t('docs.formats')),
    input);
  input.addEventListener('change', () => {
    if (input.files && input.files.length) uploads.add(input.files);
    input.value = '';
  });
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    if (e.dataTransfer && e.dataTransfer.files.length) uploads.add(e.dataTransfer.files);
  });

  // ---- uploads ----
  const uploadList = h('div', { id: 'upload-list' });
  const uploadCard = h('section', { class: 'card uploads', id: 'uploads' },
    h('div', { class: 'card-head' }, h('h2', {}, t('docs.uploads')),
      h('button', { class: 'btn btn-small btn-ghost', onclick: () => uploads.clearFinished() }, t('docs.clearDone'))),
    uploadList);
  const rows = new Map();
  const drawUploads = () => {
    const items = uploads.list();
    uploadCard.hidden = !items.length;
    for (const [key, el] of rows) if (!items.some((i) => i.key === key)) {
      el.remove();
      rows.delete(key);
    }
    items.forEach((item, index) => {
      let el = rows.get(item.key);
      const fresh = uploadRow(item);
      if (el) el.replaceWith(fresh);
      else uploadList.insertBefore(fresh, uploadList.children[index] || null);
      rows.set(item.key, fresh);
      el = fresh;
    });
  };
  drawUploads();
  const refreshSoon = debounce(() => loadList(), 400);
  unsubscribe.push(uploads.subscribe((item) => {
    drawUploads();
    if (item && uploads.isTerminal(item)) refreshSoon();
  }));

  // ---- list ----
  const search = h('input', { type: 'search', id: 'doc-search', placeholder: t('docs.search'), value: filters.q,
    'aria-label': t('docs.search') });
  const typeSelect = h('select', { id: 'doc-type', 'aria-label': t('docs.type') },
    h('option', { value: '' }, t('docs.allTypes')), TYPES.map((ty) => h('option', { value: ty, selected: ty === filters.type }, ty)));
  const topicSelect = h('select', { id: 'doc-topic', 'aria-label': t('docs.topic') }, h('option', { value: '' }, t('docs.allTopics')));
  data.topics().then((list) => {
    for (const tp of list) topicSelect.append(h('option', { value: tp.id, selected: String(tp.id) === filters.topic }, tp.name));
  }).catch(() => {
    topicSelect.hidden = true;
  });
  const sortSelect = h('select', { id: 'doc-sort', 'aria-label': t('docs.sort') },
    ['name', 'time'].map((key) => h('option', { value: key, selected: key === filters.sort }, t(`docs.sort.${key}`))));
  const table = h('div', { class: 'table-wrap', id: 'doc-table' }, loading());
  const pager = h('div', { class: 'pager' });

  const syncHash = () => {
    const next = link(['documents'], { q: filters.q, type: filters.type, topic: filters.topic,
      sort: filters.sort === 'name' ? '' : filters.sort });
    history.replaceState(null, '', next);
  };
  search.addEventListener('input', debounce(() => {
    filters.q = search.value.trim();
    filters.offset = 0;
    syncHash();
    loadList();
  }, 250));
  typeSelect.addEventListener('change', () => {
    filters.type = typeSelect.value;
    filters.offset = 0;
    syncHash();
    loadList();
  });
  topicSelect.addEventListener('change', () => {
    filters.topic = topicSelect.value;
    filters.offset = 0;
    syncHash();
    loadList();
  });
  sortSelect.addEventListener('change', () => {
    filters.sort = sortSelect.value;
    filters.offset = 0;
    syncHash();
    loadList();
  });

  let seq = 0;
  async function loadList() {
    const mine = ++seq;
    try {
      const { documents: docs, total } = await data.documents({ q: filters.q, type: filters.type, topic: filters.topic,
        sort: filters.sort, limit: PAGE, offset: filters.offset });
      if (mine !== seq) return;
      fill(table, docs.length ? docTable(docs, loadList) : empty(t('docs.empty')));
      const more = total !== null ? filters.offset + docs.length < total : docs.length === PAGE;
      fill(pager, filters.offset > 0 || more ? [
        h('span', { class: 'muted small' }, t('common.page', { from: filters.offset + 1, to: filters.offset + docs.length })
          + (total !== null ? ` / ${total}` : '')),
        h('button', { class: 'btn btn-small', disabled: filters.offset === 0, onclick: () => {
          filters.offset = Math.max(0, filters.offset - PAGE);
          loadList();
        } }, t('common.prev')),
        h('button', { class: 'btn btn-small', disabled: !more, onclick: () => {
          filters.offset += PAGE;
          loadList();
        } }, t('common.next')),
      ] : []);
    } catch (err) {
      if (mine === seq) fill(table, errorBox(err, loadList));
    }
  }
  loadList();

  root.append(
    h('div', { class: 'page-head' }, h('h1', {}, t('docs.title'))),
    zone,
    uploadCard,
    h('section', { class: 'card', style: { marginTop: '16px' } },
      h('div', { class: 'toolbar' }, search, typeSelect, topicSelect, sortSelect),
      table, pager),
  );
  return () => unsubscribe.forEach((fn) => fn());
}

function dropIcon() {
  return svgIcon('M12 16V4m0 0-4 4m4-4 4 4M4 16v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2',
    { attrs: { class: 'dropzone-icon' } });
}

function uploadRow(item) {
  const pct = uploads.percent(item);
  const terminal = uploads.isTerminal(item);
  const failed = item.state === 'failed' || item.state === 'rejected' || item.state === 'cancelled';
  const stage = uploads.step(item);
  const share = uploads.embedded(item);
  let label = terminal ? t(`job.${item.state}`) : share ? t('job.embeddedOf', share) : t(`job.${stage}`);
  if (!terminal) label += ` · ${pct}%`;
  else if (item.state === 'done' && item.outcome) label += ` · ${t(`outcome.${item.outcome}`)}`;
  const reached = uploads.STEPS.indexOf(stage);
  return h('div', { class: `upload ${failed ? 'failed' : item.state}`, dataset: { state: item.state, step: stage, file: item.name } },
    fileIcon(item.name.split('.').pop()),
    item.documentId && item.state === 'done'
      ? h('a', { class: 'name', href: link(['documents', item.documentId]), title: item.name }, item.name)
      : h('span', { class: 'name', title: item.name }, item.name),
    h('span', { class: 'state', role: 'status' }, label),
    h('div', { class: 'bar' },
      h('div', { class: `progress ${failed ? 'failed' : item.state === 'done' ? 'done' : 'active'}`, role: 'progressbar',
        'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': String(pct), 'aria-label': item.name },
      h('span', { style: { width: `${pct}%` } })),
      terminal ? null : h('div', { class: 'steps' }, uploads.STEPS.map((s, i) => h('span', {
        class: i < reached ? 'ok' : i === reached ? 'on' : '', dataset: { step: s } }, t(`job.${s}`))))),
    failed && item.error ? h('div', { class: 'upload-error' }, item.error) : null);
}

/** "full-text ready · semantic 42 %": a document answers by full-text once written; embeddings follow. */
export function indexStatus(status) {
  if (!status) return '';
  const pct = Number(status.semantic_percent);
  return h('span', { class: `badge ${pct >= 100 ? 'badge-high' : 'badge-medium'}`, title: `${status.embedded} / ${status.embedded + status.pending}` },
    t('docs.indexStatus', { n: pct }));
}

function docTable(docs, reload) {
  const body = h('tbody');
  for (const d of docs) {
    const versionsButton = h('button', { class: 'btn btn-small btn-ghost', 'aria-expanded': 'false' },
      Number(d.version_count) > 1 ? t('docs.versions', { n: d.version_count }) : t('docs.oneVersion'));
    const row = h('tr', { dataset: { id: d.id } },
      h('td', {}, h('div', { class: 'name-cell' }, fileIcon(d.file_type),
        h('a', { href: link(['documents', d.id]), title: d.source_key || d.filename }, d.filename))),
      h('td', { class: 'hide-sm' }, h('span', { class: 'badge' }, `v${d.current_version}`), ' ', versionsButton),
      h('td', { class: 'num hide-sm' }, d.node_count ?? ''),
      h('td', { class: 'hide-sm index-status' }, indexStatus(d.index_status)),
      h('td', { class: 'num hide-sm' }, fmtBytes(d.file_size)),
      h('td', { class: 'num hide-sm', title: fmtDate(d.updated_at) }, fmtRelative(d.updated_at)),
      h('td', { class: 'num' }, h('button', { class: 'btn btn-small btn-ghost btn-danger', title: t('common.delete'),
        onclick: () => remove(d, reload) }, t('common.delete'))));
    body.append(row);
    let extra = null;
    versionsButton.addEventListener('click', async () => {
      if (extra) {
        extra.remove();
        extra = null;
        versionsButton.setAttribute('aria-expanded', 'false');
        return;
      }
      const cell = h('td', { colspan: '7' }, loading());
      extra = h('tr', { class: 'versions-row' }, cell);
      row.after(extra);
      versionsButton.setAttribute('aria-expanded', 'true');
      try {
        const reply = await api(`/api/documents/${encodeURIComponent(d.id)}/versions`).catch(async (err) => {
          if (err.status !== 404 && err.status !== 405) throw err;
          return (await api(`/api/documents/${encodeURIComponent(d.id)}`)).versions;
        });
        const versions = data.listOf(reply, 'versions').slice().sort((a, b) => b.version - a.version);
        fill(cell, h('ul', { class: 'list' }, versions.map((v) => h('li', {},
          h('a', { href: link(['documents', d.id], { v: v.version }) }, t('qa.versionN', { n: v.version })),
          v.version === d.current_version ? h('span', { class: 'badge badge-mode' }, t('detail.latest')) : null,
          h('span', { class: 'grow muted small' }, fmtDate(v.created_at)),
          v.node_count !== undefined ? h('span', { class: 'muted small' }, t('docs.passagesCount', { n: v.node_count })) : null))));
      } catch (err) {
        fill(cell, errorBox(err));
      }
    });
  }
  return h('table', { class: 'table' },
    h('thead', {}, h('tr', {},
      h('th', {}, t('docs.name')), h('th', { class: 'hide-sm' }, t('docs.version')),
      h('th', { class: 'num hide-sm' }, t('docs.sections')), h('th', { class: 'hide-sm' }, t('docs.index')),
      h('th', { class: 'num hide-sm' }, t('docs.size')),
      h('th', { class: 'num hide-sm' }, t('docs.updated')), h('th', {}, ''))),
    body);
}

async function remove(doc, reload) {
  // eslint-disable-next-line no-alert
  if (!window.confirm(t('docs.confirmDelete', { name: doc.filename }))) return;
  try {
    await api(`/api/documents/${encodeURIComponent(doc.id)}`, { method: 'DELETE' });
    invalidate('documents');
    invalidate('topics');
    toast(t('docs.deleted', { name: doc.filename }));
    reload();
  } catch (err) {
    toast(t('common.error', { message: errorOf(err) }), 'error');
  }
}
