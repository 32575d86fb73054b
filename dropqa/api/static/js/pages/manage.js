// Management (admins): knowledge bases — create, rename, delete — and API keys — create (shown once),
// revoke. On an open loopback server the first admin key is made on the command line, never here.

import { api } from '../api.js';
import { empty, errorBox, fill, fmtDate, fmtRelative, h, loading, toast } from '../dom.js';
import { errorOf, t } from '../i18n.js';

const ROLES = ['reader', 'editor', 'admin'];

export function render(root, { me, reload }) {
  root.append(h('div', { class: 'page-head' },
    h('div', {}, h('h1', {}, t('manage.title')), h('div', { class: 'muted' }, t('manage.tagline')))));
  if (!me || me.role !== 'admin') {
    root.append(h('p', { class: 'notice notice-error', id: 'manage-denied' }, t('manage.adminsOnly')));
    return;
  }
  const bases = h('section', { class: 'card', id: 'manage-bases' });
  const keys = h('section', { class: 'card', id: 'manage-keys' });
  root.append(h('div', { class: 'grid' }, bases, keys));
  const state = { bases: [] };

  const afterChange = async () => {
    await reload();
    await drawBases();
    await drawKeys();
  };

  async function drawBases() {
    fill(bases, h('div', { class: 'card-head' }, h('h2', {}, t('manage.bases'))), loading());
    try {
      state.bases = await api('/api/kbs');
    } catch (err) {
      fill(bases, h('h2', {}, t('manage.bases')), errorBox(err, drawBases));
      return;
    }
    const name = h('input', { type: 'text', id: 'new-kb-name', maxlength: 64, required: true,
      placeholder: t('manage.baseName'), 'aria-label': t('manage.baseName') });
    const form = h('form', { class: 'toolbar', id: 'new-kb-form' }, name,
      h('button', { type: 'submit', class: 'btn btn-primary', id: 'new-kb-save' }, t('manage.createBase')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await api('/api/kbs', { method: 'POST', json: { name: name.value.trim() } });
        toast(t('manage.baseCreated', { name: name.value.trim() }));
        await afterChange();
      } catch (err) {
        toast(errorOf(err), 'error');
      }
    });
    fill(bases, h('div', { class: 'card-head' }, h('h2', {}, t('manage.bases'))), form,
      h('div', { class: 'table-wrap' }, h('table', { class: 'table', id: 'kb-table' },
        h('thead', {}, h('tr', {}, [t('manage.baseName'), t('manage.documents'), t('manage.created'), ''].map((c) => h('th', {}, c)))),
        h('tbody', {}, state.bases.map((b) => h('tr', { dataset: { kb: b.name } },
          h('td', {}, b.default ? t('kb.defaultName', { name: b.name }) : b.name),
          h('td', {}, String(b.document_count)),
          h('td', {}, fmtDate(b.created_at)),
          h('td', { class: 'actions' }, b.default ? h('span', { class: 'muted small' }, t('manage.defaultFixed')) : [
            h('button', { class: 'btn btn-small', dataset: { action: 'rename' }, onclick: () => renameBase(b) }, t('manage.rename')),
            h('button', { class: 'btn btn-small btn-danger', dataset: { action: 'delete' }, onclick: () => deleteBase(b) },
              t('common.delete'))])))))));
  }

  async function renameBase(b) {
    const next = window.prompt(t('manage.renamePrompt', { name: b.name }), b.name);
    if (!next || next.trim() === b.name) return;
    try {
      await api(`/api/kbs/${encodeURIComponent(b.name)}`, { method: 'PATCH', json: { name: next.trim() } });
      await afterChange();
    } catch (err) {
      toast(errorOf(err), 'error');
    }
  }

  async function deleteBase(b) {
    if (!window.confirm(t('manage.confirmDelete', { name: b.name, n: b.document_count }))) return;
    try {
      await api(`/api/kbs/${encodeURIComponent(b.name)}`, { method: 'DELETE' });
      toast(t('manage.baseDeleted', { name: b.name }));
      await afterChange();
    } catch (err) {
      toast(errorOf(err), 'error');
    }
  }

  async function drawKeys() {
    const head = h('div', { class: 'card-head' }, h('h2', {}, t('manage.keys')));
    if (me.via === 'open') {
      fill(keys, head, h('p', { class: 'notice', id: 'keys-cli' }, t('manage.firstKey'),
        h('code', {}, 'dropqa keys create --name NAME --role admin')));
      return;
    }
    fill(keys, head, loading());
    let rows;
    try {
      rows = await api('/api/keys');
    } catch (err) {
      fill(keys, head, errorBox(err, drawKeys));
      return;
    }
    const shown = h('div', { id: 'new-key-box' });
    const name = h('input', { type: 'text', id: 'new-key-name', maxlength: 64, required: true,
      placeholder: t('manage.keyName'), 'aria-label': t('manage.keyName') });
    const role = h('select', { id: 'new-key-role', 'aria-label': t('manage.role') },
      ROLES.map((r) => h('option', { value: r, selected: r === 'reader' }, t(`role.${r}`))));
    const picks = state.bases.map((b) => h('label', { class: 'check' },
      h('input', { type: 'checkbox', value: b.name, name: 'new-key-kb' }), ` ${b.name}`));
    const basesBox = h('span', { class: 'checks', id: 'new-key-kbs' }, picks);
    const syncRole = () => {
      basesBox.hidden = role.value === 'admin';
    };
    role.addEventListener('change', syncRole);
    const form = h('form', { class: 'toolbar', id: 'new-key-form' }, name, role, basesBox,
      h('button', { type: 'submit', class: 'btn btn-primary', id: 'new-key-save' }, t('manage.createKey')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const kb = role.value === 'admin' ? [] : [...form.querySelectorAll('input[name=new-key-kb]:checked')].map((i) => i.value);
      try {
        const made = await api('/api/keys', { method: 'POST', json: { name: name.value.trim(), role: role.value, kb } });
        await drawKeys();
        fill(keys.querySelector('#new-key-box'), h('div', { class: 'notice', role: 'status' },
          h('div', {}, h('strong', {}, t('manage.keyShownOnce', { name: made.name })),
            h('code', { class: 'new-key', id: 'new-key' }, made.key))));
      } catch (err) {
        toast(errorOf(err), 'error');
      }
    });
    syncRole();
    fill(keys, head, form, shown, rows.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'table', id: 'key-table' },
      h('thead', {}, h('tr', {}, [t('manage.keyName'), t('manage.role'), t('manage.bases'), t('manage.keyPrefix'),
        t('manage.lastUsed'), t('manage.status'), ''].map((c) => h('th', {}, c)))),
      h('tbody', {}, rows.map((k) => h('tr', { dataset: { key: k.name, revoked: k.revoked_at ? 'yes' : 'no' } },
        h('td', {}, k.name),
        h('td', {}, t(`role.${k.role}`)),
        h('td', {}, k.kbs.length ? k.kbs.join(', ') : t('manage.everyBase')),
        h('td', {}, h('code', {}, `${k.prefix}…`)),
        h('td', {}, k.last_used_at ? fmtRelative(k.last_used_at) : t('manage.never')),
        h('td', {}, k.revoked_at ? t('manage.revoked') : t('manage.live')),
        h('td', { class: 'actions' }, k.revoked_at ? null : h('button', { class: 'btn btn-small btn-danger',
          dataset: { action: 'revoke' }, onclick: () => revoke(k) }, t('manage.revoke')))))))) : empty());
  }

  async function revoke(k) {
    if (!window.confirm(t('manage.confirmRevoke', { name: k.name }))) return;
    try {
      await api(`/api/keys/${encodeURIComponent(k.name)}`, { method: 'DELETE' });
      await drawKeys();
    } catch (err) {
      toast(errorOf(err), 'error');
    }
  }

  drawBases().then(drawKeys);
}
