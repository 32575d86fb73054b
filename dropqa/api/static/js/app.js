// The page shell: hash routes, the language switch, the sign-in dialog, the knowledge-base switch and the
// health dot. Who is signed in and which bases they may read come from GET /api/me.

import { api, currentKb, getToken, onUnauthorized, setKb, setToken } from './api.js';
import { h, parseHash } from './dom.js';
import { applyStatic, lang, setLang, t } from './i18n.js';
import * as dashboard from './pages/dashboard.js';
import * as detail from './pages/detail.js';
import * as documents from './pages/documents.js';
import * as manage from './pages/manage.js';
import * as qa from './pages/qa.js';
import * as topics from './pages/topics.js';

const view = document.getElementById('view');
let cleanup = null;
let me = null; // {name, role, via, kbs}: null until /api/me answered

function route() {
  const { path, query } = parseHash();
  const [head, id] = path;
  if (head === 'documents' && id) return { name: 'documents', page: detail, params: { id, query } };
  if (head === 'documents') return { name: 'documents', page: documents, params: { query } };
  if (head === 'topics') return { name: 'topics', page: topics, params: { id, query } };
  if (head === 'ask') return { name: 'ask', page: qa, params: { query } };
  if (head === 'manage') return { name: 'manage', page: manage, params: { query, me, reload: loadMe } };
  return { name: 'dashboard', page: dashboard, params: { query } };
}

function render() {
  if (typeof cleanup === 'function') cleanup();
  cleanup = null;
  const { name, page, params } = route();
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.route === name);
    if (a.dataset.route === name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  view.replaceChildren();
  view.dataset.page = name;
  cleanup = page.render(view, params) || null;
  document.title = `${t(`nav.${name}`)} · DropQA`;
}

// ---- who is signed in, and the knowledge-base switch ---------------------------------------
const dialog = document.getElementById('token-dialog');
const tokenInput = document.getElementById('token-input');
const tokenButton = document.getElementById('token-button');
const tokenWho = document.getElementById('token-who');
const kbSelect = document.getElementById('kb-switch');
const kbLabel = document.getElementById('kb-switch-label');
const manageLink = document.getElementById('nav-manage');

/** The base the page shows: the one kept for this session when the key may still read it, else
 *  ``default``, else the first of the key's bases. */
function pickBase(bases) {
  const names = bases.map((b) => b.name);
  const kept = currentKb();
  if (kept && names.includes(kept)) return kept;
  if (names.includes('default')) return 'default';
  return names[0] || '';
}

function drawSwitch() {
  const bases = (me && me.kbs) || [];
  kbSelect.replaceChildren(...bases.map((b) => h('option', { value: b.name, selected: b.name === currentKb() },
    b.default ? t('kb.defaultName', { name: b.name }) : b.name)));
  kbLabel.hidden = !me;
  kbSelect.disabled = bases.length < 2;
  manageLink.hidden = !(me && me.role === 'admin');
  const signedIn = me && me.via !== 'open';
  tokenButton.hidden = !(getToken() || signedIn);
  tokenButton.textContent = me && me.via === 'key' ? me.name : t('token.button');
  tokenButton.title = signedIn ? t('token.signedIn', { name: me.name, role: t(`role.${me.role}`) }) : '';
}

async function loadMe() {
  try {
    me = await api('/api/me');
  } catch {
    me = null; // 401: the sign-in dialog is open; the page shows the server's answer
  }
  if (me) {
    const base = pickBase(me.kbs);
    if (base !== currentKb()) setKb(base);
  }
  drawSwitch();
  return me;
}

kbSelect.addEventListener('change', () => {
  setKb(kbSelect.value);
  render();
});

// ---- sign-in dialog -----------------------------------------------------------------------

function askToken() {
  tokenButton.hidden = false;
  if (dialog.open) return;
  tokenInput.value = getToken();
  tokenWho.hidden = !(me && me.via !== 'open');
  tokenWho.textContent = tokenWho.hidden ? '' : t('token.signedIn', { name: me.name, role: t(`role.${me.role}`) });
  dialog.showModal();
  tokenInput.focus();
}

onUnauthorized(askToken);
tokenButton.addEventListener('click', askToken);
document.getElementById('token-cancel').addEventListener('click', () => dialog.close());
document.getElementById('token-clear').addEventListener('click', async () => {
  setToken('');
  setKb('');
  tokenInput.value = '';
  dialog.close();
  await loadMe();
  render();
});
document.getElementById('token-form').addEventListener('submit', async () => {
  setToken(tokenInput.value);
  setKb('');
  await loadMe();
  render();
});

// ---- language -----------------------------------------------------------------------------
document.getElementById('lang-switch').addEventListener('click', () => setLang(lang() === 'zh' ? 'en' : 'zh'));
window.addEventListener('langchange', () => {
  drawSwitch();
  render();
  checkHealth();
});

// ---- health dot ---------------------------------------------------------------------------
const dot = document.getElementById('health-dot');

async function checkHealth() {
  try {
    const health = await api('/api/health');
    const ok = health.status === 'ok';
    dot.className = `health-dot ${ok ? 'ok' : 'warn'}`;
    dot.title = `${t('dash.health')}: ${t(ok ? 'health.ok' : 'health.degraded')}`;
  } catch {
    dot.className = 'health-dot down';
    dot.title = `${t('dash.health')}: ${t('health.down')}`;
  }
}

applyStatic();
window.addEventListener('hashchange', render);
loadMe().then(() => {
  render();
  checkHealth();
});
setInterval(checkHealth, 30000);
