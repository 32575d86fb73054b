// Document detail: the structure tree, versions and topics; a source link opens it at the cited section.

import { api, blobUrl } from '../api.js';
import { empty, errorBox, fileIcon, fill, fmtBytes, fmtDate, h, link, loading } from '../dom.js';
import { has, t } from '../i18n.js';
import { indexStatus } from './documents.js';

export function render(root, { id, query }) {
  const wanted = query.get('v') ? Number(query.get('v')) : null;
  const cited = query.get('node');
  const head = h('div', { class: 'detail-head' }, h('h1', {}, t('detail.title')));
  const body = h('div', {}, loading());
  root.append(h('p', {}, h('a', { href: '#/documents' }, `← ${t('nav.documents')}`)), head, body);
  let alive = true;

  api(`/api/documents/${encodeURIComponent(id)}`, { query: { version: wanted || undefined } }).then((doc) => {
    if (!alive) return;
    const version = doc.version || wanted || doc.current_version;
    fill(head, fileIcon(doc.file_type), h('h1', { id: 'doc-title' }, doc.filename),
      h('span', { class: 'badge badge-mode' }, t('qa.versionShort', { n: version })),
      version !== doc.current_version ? h('a', { class: 'small', href: link(['documents', id]) },
        `${t('detail.current')}: ${t('qa.versionShort', { n: doc.current_version })}`) : null,
      doc.deleted ? h('span', { class: 'badge badge-low' }, t('detail.deleted')) : null);

    const panel = h('section', { class: 'card node-panel', id: 'node-panel' }, empty(t('detail.selectNode')));
    const tree = buildTree(doc.structure || [], (node, button) => select(node.node_id, button, false));
    const treeCard = h('section', { class: 'card', id: 'structure' }, h('div', { class: 'card-head' }, h('h2', {}, t('detail.structure')),
      h('span', { class: 'muted small' }, t('detail.sectionsCount', { n: (doc.structure || []).length }))),
    tree.el.childElementCount ? tree.el : empty());

    const versions = (doc.versions || []).slice().sort((a, b) => b.version - a.version);
    const info = h('section', { class: 'card', id: 'doc-info' }, h('dl', { class: 'kv' },
      h('dt', {}, t('detail.type')), h('dd', {}, doc.file_type),
      h('dt', {}, t('detail.size')), h('dd', {}, fmtBytes(doc.file_size)),
      h('dt', {}, t('detail.current')), h('dd', {}, t('qa.versionShort', { n: doc.current_version })),
      h('dt', {}, t('detail.created')), h('dd', {}, fmtDate(doc.created_at)),
      h('dt', {}, t('detail.updated')), h('dd', {}, fmtDate(doc.updated_at)),
      h('dt', {}, t('detail.index')), h('dd', {}, indexStatus(doc.index_status))));
    const versionList = h('section', { class: 'card', id: 'doc-versions' }, h('h2', {}, t('detail.versions')),
      versions.length ? h('ul', { class: 'list' }, versions.map((v) => h('li', { class: v.version === version ? 'current' : '' },
        v.version === version ? h('strong', {}, t('qa.versionN', { n: v.version }))
          : h('a', { href: link(['documents', id], { v: v.version }) }, t('qa.versionN', { n: v.version })),
        v.version === doc.current_version ? h('span', { class: 'badge badge-high' }, t('detail.latest')) : null,
        h('span', { class: 'grow muted small' }, fmtDate(v.created_at)),
        v.node_count !== undefined ? h('span', { class: 'muted small' }, t('docs.passagesCount', { n: v.node_count })) : null,
        v.file_hash ? h('code', { class: 'muted small', title: `${t('detail.hash')}: ${v.file_hash}` }, String(v.file_hash).slice(0, 8)) : null)))
        : empty());
    const topics = h('section', { class: 'card', id: 'doc-topics' }, h('h2', {}, t('detail.topics')),
      (doc.topics || []).length ? h('div', {}, doc.topics.map((tp) => h('a', { class: 'chip', href: link(['topics', tp.id]) }, tp.name)))
        : empty(t('detail.noTopics')));

    fill(body, h('div', { class: 'detail' }, treeCard, h('div', { class: 'detail-side' }, panel, info, versionList, topics)));

    let selectSeq = 0;
    async function select(nodeId, button, isCited) {
      const mine = ++selectSeq;
      for (const el of tree.el.querySelectorAll('.tree-node.selected')) el.classList.remove('selected');
      if (button) button.classList.add('selected');
      fill(panel, loading());
      panel.classList.toggle('cited', isCited);
      try {
        const node = await api(`/api/nodes/${encodeURIComponent(nodeId)}`);
        if (mine !== selectSeq || !alive) return null;
        fill(panel, nodeView(node, isCited));
        return node;
      } catch (err) {
        if (mine === selectSeq) fill(panel, errorBox(err));
        return null;
      }
    }

    if (cited) {
      (async () => {
        const node = await select(cited, null, true);
        // the cited node may be a paragraph below the outline: walk up to the nearest section shown in the tree
        let current = node;
        for (let hops = 0; current && hops < 12; hops += 1) {
          const button = tree.buttons.get(current.node_id);
          if (button) {
            button.classList.add('cited', 'selected');
            button.setAttribute('aria-current', 'location');
            button.scrollIntoView({ block: 'nearest' });
            break;
          }
          if (!current.parent_id) break;
          current = await api(`/api/nodes/${encodeURIComponent(current.parent_id)}`).catch(() => null);
        }
      })();
    }
  }).catch((err) => {
    if (alive) fill(body, err.status === 404 ? h('div', { class: 'card' }, empty(t('detail.notFound'))) : errorBox(err));
  });
  return () => {
    alive = false;
  };
}

/** Nest the flat outline (parent_id links) into a list; returns the element and node_id → button. */
function buildTree(nodes, onSelect) {
  const byParent = new Map();
  const ids = new Set(nodes.map((n) => n.node_id));
  for (const n of nodes) {
    const parent = n.parent_id && ids.has(n.parent_id) ? n.parent_id : null;
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(n);
  }
  const buttons = new Map();
  const level = (parent) => h('ul', {}, (byParent.get(parent) || []).map((n) => {
    const button = h('button', { type: 'button', class: 'tree-node', dataset: { node: n.node_id, type: n.type } },
      n.type && n.type !== 'section' && has(`node.${n.type}`) ? h('span', { class: 'badge' }, t(`node.${n.type}`)) : null,
      h('span', { class: 'title' }, n.title || '—'),
      n.page ? h('span', { class: 'page' }, t('detail.page', { n: n.page })) : null);
    button.addEventListener('click', () => onSelect(n, button));
    buttons.set(n.node_id, button);
    const summary = n.summary && n.type !== 'document' ? h('div', { class: 'tree-summary' }, clip(n.summary, 160)) : null;
    return h('li', {}, button, summary, byParent.has(n.node_id) ? level(n.node_id) : null);
  }));
  const el = level(null);
  el.className = 'tree';
  el.id = 'tree';
  return { el, buttons };
}

function clip(text, n) {
  const s = String(text);
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function nodeView(node, isCited) {
  const crumb = node.breadcrumb ? node.breadcrumb.split(' > ').join(' › ') : '';
  const img = node.image_id ? h('img', { alt: node.title || '', loading: 'lazy' }) : null;
  if (img) {
    blobUrl(`/api/images/${encodeURIComponent(node.image_id)}`).then((url) => {
      img.src = url;
    }).catch(() => img.remove());
  }
  return [
    h('div', { class: 'card-head' }, h('h2', {}, isCited ? t('detail.cited') : t('detail.section')),
      node.page ? h('span', { class: 'muted small' }, t(node.page_estimated ? 'qa.pageEstimated' : 'qa.page', { n: node.page })) : null),
    crumb ? h('div', { class: 'crumb', id: 'node-crumb' }, crumb) : null,
    node.title ? h('h3', {}, node.title) : null,
    img,
    h('div', { class: 'content', id: 'node-content' }, node.content || node.summary || ''),
  ];
}
