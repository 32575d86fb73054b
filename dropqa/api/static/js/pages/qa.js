// QA: a chat with streamed tokens, topic and version filters, the reasoning trace, badges and sources.
// The conversation lives in this module, so it is still there after a source is opened and the user comes back.

import { ApiError, api, stream } from '../api.js';
import * as data from '../data.js';
import { fill, fmtRelative, h, link, svgIcon, toast } from '../dom.js';
import { errorOf, errorText, has, lang, t } from '../i18n.js';

const REASONING_KEY = 'dropqa.showReasoning';
const state = {
  messages: [],
  topic: '',
  version: '',
  showReasoning: localStorage.getItem(REASONING_KEY) !== '0',
  threadId: null,
  busy: false,
};
let page = null; // {el, lang, chat, textarea, ...} kept across route changes
let controller = null;
const views = new Map(); // message → its element, for the page currently built

export function render(root, { query }) {
  if (!page || page.lang !== lang()) page = build();
  root.append(page.el);
  const topic = query.get('topic');
  if (topic !== null && topic !== state.topic) {
    state.topic = topic;
    page.syncTopic();
  }
  const q = query.get('q');
  if (q) page.textarea.value = q;
  page.refreshHistory();
  page.refreshFilters();
  if (!state.busy) page.textarea.focus();
  return null;
}

function build() {
  const chat = h('div', { class: 'chat', id: 'chat', 'aria-live': 'polite' });
  const textarea = h('textarea', { id: 'question', rows: '1', placeholder: t('qa.placeholder'), 'aria-label': t('qa.placeholder') });
  const send = h('button', { type: 'submit', class: 'btn btn-primary', id: 'ask-button' }, t('qa.send'));
  const stop = h('button', { type: 'button', class: 'btn', id: 'stop-button', hidden: true }, t('qa.stop'));
  const form = h('form', { id: 'ask-form' }, textarea, stop, send);

  const topicSelect = h('select', { id: 'qa-topic', 'aria-label': t('qa.topic') }, h('option', { value: '' }, t('qa.anyTopic')));
  const versionSelect = h('select', { id: 'qa-version', 'aria-label': t('qa.version') }, h('option', { value: '' }, t('qa.latest')));
  const reasoning = h('input', { type: 'checkbox', id: 'show-reasoning', checked: state.showReasoning });
  const newChat = h('button', { type: 'button', class: 'btn btn-small btn-ghost', id: 'new-chat' }, t('qa.newChat'));
  const filters = h('div', { class: 'card qa-filters', id: 'qa-filters' },
    h('label', {}, t('qa.topic'), topicSelect),
    h('label', {}, t('qa.version'), versionSelect),
    h('label', { class: 'check' }, reasoning, t('qa.showReasoning')),
    h('span', { class: 'spacer' }),
    newChat);
  const historyList = h('ul', { class: 'list', id: 'qa-history' });
  const el = h('div', { class: 'qa' },
    h('div', { class: 'qa-main' }, filters, chat, h('div', { class: 'composer' }, form)),
    h('aside', { class: 'qa-side' }, h('section', { class: 'card' }, h('h2', {}, t('qa.history')), historyList)));

  const self = { el, lang: lang(), chat, textarea };

  topicSelect.addEventListener('change', () => {
    state.topic = topicSelect.value;
  });
  versionSelect.addEventListener('change', () => {
    state.version = versionSelect.value;
  });
  reasoning.addEventListener('change', () => {
    state.showReasoning = reasoning.checked;
    localStorage.setItem(REASONING_KEY, reasoning.checked ? '1' : '0');
  });
  newChat.addEventListener('click', () => {
    if (controller) controller.abort();
    state.messages = [];
    state.threadId = null;
    drawAll();
    textarea.focus();
  });
  textarea.addEventListener('input', () => autosize(textarea));
  textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const question = textarea.value.trim();
    if (!question || state.busy) return;
    textarea.value = '';
    autosize(textarea);
    ask(question);
  });
  stop.addEventListener('click', () => {
    if (controller) controller.abort();
  });

  self.syncTopic = () => {
    if (state.topic && ![...topicSelect.options].some((o) => o.value === state.topic)) {
      topicSelect.append(h('option', { value: state.topic }, state.topic));
    }
    topicSelect.value = state.topic;
  };
  self.refreshFilters = async () => {
    try {
      const list = await data.topics();
      const have = new Set([...topicSelect.options].map((o) => o.value));
      for (const tp of list) if (!have.has(tp.name)) topicSelect.append(h('option', { value: tp.name }, tp.name));
      self.syncTopic();
    } catch {
      // topics unavailable: the filter stays at "any topic"
    }
    const max = await data.maxVersion();
    const have = versionSelect.options.length - 1;
    for (let v = have + 1; v <= max; v += 1) versionSelect.append(h('option', { value: String(v) }, t('qa.versionN', { n: v })));
    versionSelect.value = state.version;
  };
  self.refreshHistory = async () => {
    try {
      const rows = data.listOf(await api('/api/qa/history', { query: { limit: 12 } }), 'history');
      fill(historyList, rows.length ? rows.map((r) => h('li', {},
        h('button', { type: 'button', title: r.question, onclick: () => showPast(r) }, r.question),
        h('span', { class: 'muted small' }, fmtRelative(r.created_at)))) : h('li', { class: 'muted small' }, t('common.none')));
    } catch {
      fill(historyList);
    }
  };
  self.setBusy = (busy) => {
    state.busy = busy;
    send.disabled = busy;
    stop.hidden = !busy;
  };

  function drawAll() {
    views.clear();
    fill(chat, state.messages.length ? state.messages.map((m, i) => messageView(m, i)) : h('div', { class: 'chat-empty' }, t('qa.empty')));
  }

  async function ask(question) {
    if (!state.messages.length) fill(chat);
    const user = { role: 'user', text: question };
    const bot = { role: 'bot', question, status: 'start', retrieval: null, tokens: '', trace: [], citations: [], answer: null,
      error: null, stopped: false, showReasoning: state.showReasoning, traceOpen: false, feedback: null };
    state.messages.push(user, bot);
    const index = state.messages.length - 1;
    chat.append(messageView(user, index - 1), messageView(bot, index));
    window.scrollTo({ top: document.body.scrollHeight });
    self.setBusy(true);
    controller = new AbortController();
    const body = { question, show_reasoning: state.showReasoning };
    if (state.topic) body.topic_filter = [state.topic];
    if (state.version) body.version = Number(state.version);
    if (state.threadId) body.thread_id = state.threadId;
    try {
      try {
        for await (const { event, data: payload } of stream('/api/qa/stream', { json: body, signal: controller.signal })) {
          onEvent(bot, event, payload);
          if (event === 'token') showToken(bot, index, payload && typeof payload === 'object' ? payload.text || '' : '');
          else schedule(bot, index);
          if (event === 'done' || event === 'error') break;
        }
      } catch (err) {
        if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 405)) throw err;
        onEvent(bot, 'done', await api('/api/qa/ask', { method: 'POST', json: body, signal: controller.signal }));
      }
      if (!bot.answer && !bot.error) bot.error = t('qa.noEnd');
    } catch (err) {
      if (err.name === 'AbortError') bot.stopped = true;
      else bot.error = errorOf(err);
    } finally {
      controller = null;
      self.setBusy(false);
      schedule(bot, index);
      self.refreshHistory();
    }
  }

  /** A past answer from the history, shown as it was given (no new run). */
  function showPast(row) {
    if (!state.messages.length) fill(chat);
    const answer = row.response && typeof row.response === 'object' && row.response.answer !== undefined
      ? { ...row.response, answer_id: row.response.answer_id || row.id } : null;
    const user = { role: 'user', text: row.question };
    const bot = { role: 'bot', question: row.question, status: null, retrieval: null, tokens: '', trace: [], citations: [],
      answer: answer || { answer: row.answer, answerable: true, confidence: 'low', mode: 'direct', sources: [], answer_id: row.id },
      error: null, stopped: false, showReasoning: state.showReasoning, traceOpen: false,
      feedback: row.feedback && row.feedback.rating };
    state.messages.push(user, bot);
    chat.append(messageView(user, state.messages.length - 2), messageView(bot, state.messages.length - 1));
    views.get(user).el.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  function onEvent(bot, event, payload) {
    if (event === 'status') bot.status = payload && payload.node;
    else if (event === 'retrieval') bot.retrieval = payload;
    else if (event === 'reasoning' && payload && !String(payload.type || '').startsWith('__')) bot.trace.push(payload);
    else if (event === 'token') bot.tokens += payload && typeof payload === 'object' ? payload.text || '' : String(payload);
    else if (event === 'citation') bot.citations.push(payload);
    else if (event === 'error') bot.error = errorText(payload && payload.code, payload && payload.params, payload && payload.message);
    else if (event === 'done') {
      bot.answer = payload;
      if (payload && payload.thread_id) state.threadId = payload.thread_id;
    }
  }

  drawAll();
  return self;
}

// One element per message; a message redraws itself (coalesced per animation frame).
function messageView(msg, index) {
  const body = h('div', { class: 'bubble' });
  const el = h('div', { class: `msg msg-${msg.role}`, dataset: { index: String(index) } },
    h('span', { class: 'who' }, t(msg.role === 'user' ? 'qa.you' : 'qa.assistant')), body);
  const view = { el, body, pending: false };
  msg.index = index;
  views.set(msg, view);
  draw(msg, index);
  return el;
}

function draw(msg, index = msg.index) {
  const view = views.get(msg);
  if (!view) return;
  if (msg.role === 'user') fill(view.body, msg.text);
  else fill(view.body, botBody(msg, index));
  view.el.classList.toggle('answered', Boolean(msg.answer));
}

function schedule(msg, index) {
  const view = views.get(msg);
  if (!view || view.pending) return;
  view.pending = true;
  requestAnimationFrame(() => {
    view.pending = false;
    const stick = nearBottom();
    draw(msg, index);
    if (stick) window.scrollTo({ top: document.body.scrollHeight });
  });
}

/** Tokens are shown as they arrive (not once per frame): append to the streaming text, or draw it first. */
function showToken(msg, index, text) {
  const view = views.get(msg);
  if (!view) return;
  const stick = nearBottom();
  const el = view.body.querySelector('.answer-text.streaming');
  if (el && el.firstChild && el.firstChild.nodeType === Node.TEXT_NODE) el.firstChild.appendData(text);
  else draw(msg, index);
  if (stick) window.scrollTo({ top: document.body.scrollHeight });
}

function nearBottom() {
  return window.innerHeight + window.scrollY >= document.body.scrollHeight - 160;
}

function autosize(textarea) {
  textarea.style.height = 'auto';
  textarea.style.height = `${Math.min(textarea.scrollHeight, 200)}px`;
}

// ---- one assistant message ------------------------------------------------------------------

function botBody(msg, index) {
  const a = msg.answer;
  const parts = [];
  if (!a) {
    if (!msg.error && !msg.stopped) parts.push(statusLine(msg));
    if (msg.tokens) parts.push(h('div', { class: 'answer-text streaming' }, msg.tokens, msg.error || msg.stopped ? null : h('span', { class: 'cursor' })));
    if (msg.stopped) parts.push(h('div', { class: 'muted' }, t('qa.stopped')));
    if (msg.error) parts.push(h('div', { class: 'error-line', role: 'alert' }, t('qa.error', { message: msg.error })));
    if (msg.trace.length) parts.push(traceView(msg, msg.trace));
    if (msg.citations.length) parts.push(sourcesView(msg.citations.map((s, i) => ({ ...s, n: i + 1 })), index, t('qa.sources')));
    return parts;
  }
  if (a.answerable === false) {
    parts.push(h('div', { class: 'not-answerable', id: `not-answerable-${index}` },
      h('strong', {}, t('qa.notAnswerable')), h('span', { class: 'small' }, t('qa.notAnswerableHelp'))));
  }
  const sources = (a.sources || []).map((s, i) => ({ ...s, n: i + 1 }));
  parts.push(h('div', { class: 'answer-text' }, citedText(a.answer || '', sources, index)));
  parts.push(badges(a, msg));
  const topics = a.identified_topics || [];
  if (topics.length) {
    parts.push(h('div', { class: 'small', style: { marginTop: '8px' } }, h('span', { class: 'muted' }, `${t('qa.topics')}: `),
      topics.map((name) => h('span', { class: 'chip' }, name))));
  }
  const trace = a.reasoning_trace && a.reasoning_trace.length ? a.reasoning_trace : msg.trace;
  if (msg.showReasoning && trace.length) parts.push(traceView(msg, trace));
  const cited = sources.filter((s) => s.cited);
  const rest = sources.filter((s) => !s.cited);
  if (a.answerable !== false && cited.length) {
    parts.push(sourcesView(cited, index, t('qa.sources')));
    if (rest.length) parts.push(sourcesView(rest, index, t('qa.otherSources'), 'sources-other'));
  } else if (sources.length) {
    parts.push(a.answerable === false ? sourcesView(sources, index, t('qa.otherSources'), 'sources-other')
      : sourcesView(sources, index, t('qa.sources')));
  }
  if (msg.error) parts.push(h('div', { class: 'error-line' }, t('qa.error', { message: msg.error })));
  return parts;
}

function statusLine(msg) {
  const node = msg.status || 'start';
  const key = `qa.status.${node}`;
  const text = t(key) === key ? t('qa.status.other', { node }) : t(key);
  const r = msg.retrieval;
  return h('div', { class: 'status-line', id: 'qa-status' }, h('span', { class: 'spinner' }), text,
    r ? h('span', { class: 'muted' }, `· ${t('qa.retrieval', { n: r.hits, rel: Number(r.top_relevance || 0).toFixed(2) })}`) : null);
}

function badges(a, msg) {
  const conf = ['high', 'medium', 'low'].includes(a.confidence) ? a.confidence : 'low';
  const rounds = Number(a.iterations) || 0;
  return h('div', { class: 'badges' },
    // For "not answerable", confidence is about the absence of an answer: a neutral badge, not a green one.
    a.answerable === false
      ? h('span', { class: 'badge badge-mode', dataset: { confidence: conf }, id: 'confidence-badge' }, t(`qa.confNo.${conf}`))
      : h('span', { class: `badge badge-${conf}`, dataset: { confidence: conf }, id: 'confidence-badge' }, t(`qa.conf.${conf}`)),
    h('span', { class: 'badge badge-mode', dataset: { mode: a.mode } }, t(`qa.mode.${a.mode === 'agent' ? 'agent' : 'direct'}`)),
    a.mode === 'agent' || rounds > 1 ? h('span', { class: 'badge' }, rounds === 1 ? t('qa.oneRound') : t('qa.rounds', { n: rounds })) : null,
    a.degraded ? h('span', { class: 'badge badge-warn' }, t('qa.degraded')) : null,
    typeof a.latency_ms === 'number' ? h('span', { class: 'latency' }, t('qa.latency', { s: (a.latency_ms / 1000).toFixed(1) })) : null,
    h('span', { class: 'msg-actions' },
      feedbackButton(msg, 'up', t('qa.helpful')),
      feedbackButton(msg, 'down', t('qa.notHelpful')),
      h('button', { type: 'button', class: 'btn btn-small btn-ghost', title: t('qa.copy'), onclick: async (e) => {
        try {
          await navigator.clipboard.writeText(a.answer || '');
          e.currentTarget.textContent = t('qa.copied');
        } catch {
          // clipboard not allowed (plain http on a LAN address): nothing to do
        }
      } }, t('qa.copy'))));
}

function feedbackButton(msg, rating, label) {
  const a = msg.answer || {};
  const chosen = msg.feedback === rating;
  return h('button', { type: 'button', class: `btn btn-small btn-ghost btn-icon feedback${chosen ? ' chosen' : ''}`, title: label,
    'aria-label': label, 'aria-pressed': chosen ? 'true' : 'false', disabled: !a.answer_id, dataset: { rating },
    onclick: async () => {
      try {
        await api('/api/qa/feedback', { method: 'POST', json: { answer_id: a.answer_id, rating } });
        msg.feedback = rating;
        draw(msg, msg.index);
        toast(t('qa.thanks'));
      } catch (err) {
        toast(t('common.error', { message: errorOf(err) }), 'error');
      }
    } }, thumb(rating === 'down'));
}

/** A thumb icon (inline SVG: no emoji font needed). */
function thumb(down) {
  const svg = svgIcon('M7 10v11H3V10h4zm2 11h8.3a2 2 0 0 0 2-1.6l1.4-7A2 2 0 0 0 18.7 10H14l.9-4.3a1.5 1.5 0 0 0-.4-1.4L13.6 '
    + '3.5 8.3 9A2 2 0 0 0 9 10.4V21z', { strokeWidth: '1.7', attrs: { width: '16', height: '16' } });
  if (down) svg.style.transform = 'rotate(180deg)';
  return svg;
}

/** The answer text with ``[n]`` turned into links to source n (text nodes only — never markup). */
function citedText(text, sources, index) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(m[1]);
    const src = sources[n - 1];
    if (!src) continue;
    out.push(text.slice(last, m.index));
    out.push(h('a', { class: 'cite', href: sourceHref(src), title: `${src.document_name} > ${src.section}`,
      dataset: { n: String(n) }, onclick: (e) => {
        const target = document.getElementById(`src-${index}-${n}`);
        if (!target || e.ctrlKey || e.metaKey) return;
        e.preventDefault();
        target.scrollIntoView({ behavior: 'smooth', block: 'center' });
        target.classList.add('flash');
        setTimeout(() => target.classList.remove('flash'), 1600);
      } }, `[${n}]`));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out;
}

function sourceHref(src) {
  return link(['documents', src.document_id], { node: src.node_id, v: src.version });
}

function traceView(msg, trace) {
  const details = h('details', { class: 'trace', id: `trace-${msg.index}`, open: msg.traceOpen },
    h('summary', {}, t('qa.reasoningSteps', { n: trace.filter((s) => !String(s.type || '').startsWith('__')).length })),
    h('ol', {}, trace.filter((step) => !String(step.type || '').startsWith('__')).map((step, i) => {
      const args = argumentsText(step.arguments);
      const type = step.type ? (has(`trace.${step.type}`) ? t(`trace.${step.type}`) : step.type.replace(/_/g, ' ')) : null;
      return h('li', { dataset: { type: step.type || '' } },
        h('div', { class: 'step-head' },
          h('strong', {}, t('qa.step', { n: i + 1 })),
          type ? h('span', { class: 'step-type' }, type) : null,
          step.tool ? h('code', { class: 'step-tool' }, step.tool) : null),
        step.content ? h('div', { class: 'step-content' }, step.content) : null,
        args ? h('code', { class: 'step-args' }, args) : null,
        step.result_summary && step.result_summary !== step.content
          ? h('div', { class: 'step-result' }, `→ ${step.result_summary}`) : null);
    })));
  details.addEventListener('toggle', () => {
    msg.traceOpen = details.open;
  });
  return details;
}

/** ``{query: "x", version: null, rewrites: []}`` → ``query: "x"`` (empty values left out). */
function argumentsText(args) {
  if (!args || typeof args !== 'object') return '';
  return Object.entries(args)
    .filter(([, v]) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(' · ');
}

function sourcesView(sources, index, title, extraClass = '') {
  const list = h('ol', {}, sources.map((s) => {
    const rel = Math.round(Number(s.relevance || 0) * 100);
    const page = s.page ? t(s.page_estimated ? 'qa.pageEstimated' : 'qa.page', { n: s.page }) : null;
    return h('li', {}, h('a', { class: 'source', id: `src-${index}-${s.n}`, href: sourceHref(s),
      dataset: { node: s.node_id, document: s.document_id, cited: s.cited ? '1' : '0' } },
    h('span', { class: 'n' }, `[${s.n}]`),
    h('span', { class: 'where' }, h('span', { class: 'doc' }, s.document_name),
      s.section ? [h('span', { class: 'sep' }, ' › '), s.section.split(' > ').join(' › ')] : null),
    h('span', { class: 'meta' },
      h('span', { title: t('qa.relevance', { p: rel }) }, h('span', { class: 'relbar' }, h('span', { style: { width: `${rel}%` } })),
        ` ${rel}%`),
      page ? h('span', {}, page) : null,
      s.version ? h('span', {}, t('qa.versionShort', { n: s.version })) : null),
    s.snippet ? h('span', { class: 'snippet' }, s.snippet) : null));
  }));
  if (extraClass === 'sources-other') {
    // passages that were found but not cited: there, but out of the way
    return h('details', { class: `sources ${extraClass}` }, h('summary', {}, `${title} (${sources.length})`), list);
  }
  return h('div', { class: `sources ${extraClass}` }, h('h3', {}, title), list);
}
