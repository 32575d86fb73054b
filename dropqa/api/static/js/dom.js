// Building DOM safely: every string becomes a text node. Nothing here (or anywhere in the page)
// parses a string as HTML, so document text can never become markup.

import { errorOf, locale, t } from './i18n.js';

/** ``h('a', {href, class, onclick}, child, 'text', [more])`` — children may be nodes, strings or arrays. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'style' && typeof value === 'object') Object.assign(el.style, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'value' || key === 'checked' || key === 'selected' || key === 'open') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  add(el, children);
  return el;
}

export function add(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replace everything inside ``el``. */
export function fill(el, ...children) {
  el.replaceChildren();
  return add(el, children);
}

export function loading() {
  return h('div', { class: 'loading', role: 'status' }, h('span', { class: 'spinner' }), t('common.loading'));
}

export function errorBox(err, retry) {
  return h('div', { class: 'notice notice-error', role: 'alert' },
    t('common.error', { message: errorOf(err) }),
    retry ? h('button', { class: 'btn btn-small', onclick: retry }, t('common.retry')) : null);
}

export function empty(text) {
  return h('p', { class: 'empty' }, text || t('common.none'));
}

export function fmtBytes(n) {
  if (n === null || n === undefined) return '';
  const units = ['B', 'KB', 'MB', 'GB'];
  let i = 0;
  let v = Number(n);
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v >= 10 || i === 0 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

export function fmtDate(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(locale(), { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function fmtRelative(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const secs = (d.getTime() - Date.now()) / 1000;
  const rtf = new Intl.RelativeTimeFormat(locale(), { numeric: 'auto' });
  const steps = [[60, 'second'], [60, 'minute'], [24, 'hour'], [7, 'day'], [4.35, 'week'], [12, 'month']];
  let v = secs;
  for (const [size, unit] of steps) {
    if (Math.abs(v) < size) return rtf.format(Math.round(v), unit);
    v /= size;
  }
  return rtf.format(Math.round(v), 'year');
}

/** A short-lived message at the bottom of the screen. */
export function toast(text, kind = 'info') {
  let host = document.getElementById('toasts');
  if (!host) {
    host = h('div', { id: 'toasts', class: 'toasts', 'aria-live': 'polite' });
    document.body.append(host);
  }
  const el = h('div', { class: `toast toast-${kind}` }, text);
  host.append(el);
  setTimeout(() => el.classList.add('toast-hide'), 3200);
  setTimeout(() => el.remove(), 3800);
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** ``#/documents/abc?node=x`` → ``{path: ['documents', 'abc'], query: URLSearchParams}``. */
export function parseHash(hash = location.hash) {
  const raw = hash.replace(/^#\/?/, '');
  const [path, qs] = raw.split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs || '') };
}

export function link(path, query) {
  const qs = query ? new URLSearchParams(Object.entries(query).filter(([, v]) => v !== null && v !== undefined && v !== ''))
    .toString() : '';
  return `#/${path.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}

export function fileIcon(type) {
  const map = { md: 'MD', markdown: 'MD', txt: 'TXT', text: 'TXT', docx: 'DOC', doc: 'DOC', pptx: 'PPT', ppt: 'PPT',
    xlsx: 'XLS', xls: 'XLS', csv: 'CSV', pdf: 'PDF', png: 'IMG', jpg: 'IMG', jpeg: 'IMG', image: 'IMG', html: 'HTML' };
  const label = map[String(type || '').toLowerCase()] || String(type || '?').slice(0, 4).toUpperCase();
  return h('span', { class: `file-icon file-${label.toLowerCase()}`, 'aria-hidden': 'true' }, label);
}

/** An inline SVG icon of one stroked path (no icon font, no emoji font): ``attrs`` go on the <svg>. */
export function svgIcon(d, { strokeWidth = '1.8', attrs = {} } = {}) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  for (const [k, v] of Object.entries(attrs)) svg.setAttribute(k, v);
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', strokeWidth);
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.append(path);
  return svg;
}
