// The page shell: hash routes, the language switch, the token dialog and the health dot.

import { api, getToken, onUnauthorized, setToken } from './api.js';
import { parseHash } from './dom.js';
import { applyStatic, lang, setLang, t } from './i18n.js';
import * as dashboard from './pages/dashboard.js';
import * as detail from './pages/detail.js';
import * as documents from './pages/documents.js';
import * as qa from './pages/qa.js';
import * as topics from './pages/topics.js';

const view = document.getElementById('view');
let cleanup = null;

function route() {
  const { path, query } = parseHash();
  const [head, id] = path;
  if (head === 'documents' && id) return { name: 'documents', page: detail, params: { id, query } };
  if (head === 'documents') return { name: 'documents', page: documents, params: { query } };
  if (head === 'topics') return { name: 'topics', page: topics, params: { id, query } };
  if (head === 'ask') return { name: 'ask', page: qa, params: { query } };
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

// ---- token dialog -------------------------------------------------------------------------
const dialog = document.getElementById('token-dialog');
const tokenInput = document.getElementById('token-input');
const tokenButton = document.getElementById('token-button');

function askToken() {
  tokenButton.hidden = false;
  if (dialog.open) return;
  tokenInput.value = getToken();
  dialog.showModal();
  tokenInput.focus();
}

onUnauthorized(askToken);
tokenButton.addEventListener('click', askToken);
document.getElementById('token-cancel').addEventListener('click', () => dialog.close());
document.getElementById('token-clear').addEventListener('click', () => {
  setToken('');
  tokenInput.value = '';
  dialog.close();
});
document.getElementById('token-form').addEventListener('submit', () => {
  setToken(tokenInput.value);
  render();
});
if (getToken()) tokenButton.hidden = false;

// ---- language -----------------------------------------------------------------------------
document.getElementById('lang-switch').addEventListener('click', () => setLang(lang() === 'zh' ? 'en' : 'zh'));
window.addEventListener('langchange', () => {
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
render();
checkHealth();
setInterval(checkHealth, 30000);
