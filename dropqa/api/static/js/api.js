// The JSON API: fetch with the key (when the server needs one), errors as ApiError, and Server-Sent
// Events read from a fetch body (so POST and the Authorization header work). Every request about
// documents names the knowledge base the page shows (``kb``); the key and the base are kept for
// this browser session only (sessionStorage).

const TOKEN_KEY = 'dropqa.token';
const KB_KEY = 'dropqa.kb';
// Routes about the caller, the bases and the keys themselves: never narrowed to one base.
const UNSCOPED = ['/api/me', '/api/kbs', '/api/keys', '/api/health'];
let unauthorizedHandler = () => {};
localStorage.removeItem(TOKEN_KEY); // earlier pages kept the token for good; a key now lasts one session

export class ApiError extends Error {
  constructor(status, code, message, params = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.params = params || {};  // the values the message is made of: the page words it in its own language
  }
}

export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token.trim());
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** The knowledge base the page shows ('' before the page knows the caller's bases). */
export function currentKb() {
  return sessionStorage.getItem(KB_KEY) || '';
}

export function setKb(name) {
  if (name) sessionStorage.setItem(KB_KEY, name);
  else sessionStorage.removeItem(KB_KEY);
  invalidate();
}

function scoped(path) {
  return path.startsWith('/api/') && !UNSCOPED.some((p) => path === p || path.startsWith(`${p}/`) || path.startsWith(`${p}?`));
}

/** ``url`` with ``kb=<current base>`` when it is about documents. */
export function withKb(url) {
  const kb = currentKb();
  if (!kb || !scoped(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}kb=${encodeURIComponent(kb)}`;
}

/** A JSON body about documents names the base too (the question routes read it from the body). */
function withKbBody(path, json) {
  const kb = currentKb();
  if (!kb || !scoped(path) || !json || typeof json !== 'object' || Array.isArray(json) || 'kb' in json) return json;
  return { ...json, kb };
}

/** Called with no arguments when a request comes back 401 (the page asks for the token). */
export function onUnauthorized(fn) {
  unauthorizedHandler = fn;
}

function headers(extra = {}) {
  const out = { Accept: 'application/json', ...extra };
  const token = getToken();
  if (token) out.Authorization = `Bearer ${token}`;
  return out;
}

/** A 401 to the key the page holds now asks for a key; one to a key since replaced (a request sent before
 *  signing in, answered after) does not reopen the dialog. */
function unauthorized(sentHeaders) {
  const token = getToken();
  if (((sentHeaders && sentHeaders.Authorization) || '') === (token ? `Bearer ${token}` : '')) unauthorizedHandler();
}

async function errorOf(response, sentHeaders) {
  let code = `http_${response.status}`;
  let message = response.statusText || code;
  let params = null;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
      params = body.error.params || null;
    } else if (body && body.detail) {
      message = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
    }
  } catch {
    // not JSON: keep the status text
  }
  if (response.status === 401) unauthorized(sentHeaders);
  return new ApiError(response.status, code, message, params);
}

/** ``api('/api/documents', {query: {q}})`` or ``api(path, {method: 'POST', json: {...}})``; ``scoped: false``
 *  reads every base the key may read (an upload's jobs, whichever base the page shows now). */
export async function api(path, { method = 'GET', json, body, query, signal, scoped: narrow = true } = {}) {
  let url = path;
  if (query) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') qs.append(k, v);
    if ([...qs].length) url += `?${qs}`;
  }
  const init = { method, signal, headers: headers(json !== undefined ? { 'Content-Type': 'application/json' } : {}) };
  if (json !== undefined) init.body = JSON.stringify(narrow ? withKbBody(path, json) : json);
  else if (body !== undefined) init.body = body;
  const response = await fetch(narrow ? withKb(url) : url, init);
  if (!response.ok) throw await errorOf(response, init.headers);
  if (response.status === 204) return null;
  const type = response.headers.get('content-type') || '';
  return type.includes('json') ? response.json() : response.text();
}

/** Read ``text/event-stream`` from a fetch response; yields ``{event, data}`` (data parsed as JSON when it is). */
export async function* readEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const parsed = parseBlock(block);
      if (parsed) yield parsed;
    }
    if (done) break;
  }
  const last = parseBlock(buffer);
  if (last) yield last;
}

function parseBlock(block) {
  let event = 'message';
  const data = [];
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (!data.length) return null;
  const text = data.join('\n');
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}

/** Open an event stream (GET, or POST with a JSON body) and yield its events. */
export async function* stream(path, { json, signal, scoped: narrow = true } = {}) {
  const init = { method: json === undefined ? 'GET' : 'POST', signal,
    headers: headers({ Accept: 'text/event-stream', ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) }) };
  if (json !== undefined) init.body = JSON.stringify(narrow ? withKbBody(path, json) : json);
  const response = await fetch(narrow ? withKb(path) : path, init);
  if (!response.ok) throw await errorOf(response, init.headers);
  yield* readEvents(response);
}

/** Upload files as multipart (field ``files``) with byte progress; resolves with the JSON reply. */
export function upload(files, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const f of files) form.append('files', f, f.name);
    if (currentKb()) form.append('kb', currentKb());
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/documents/upload');
    xhr.setRequestHeader('Accept', 'application/json');
    const token = getToken();
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // fall through with body = null
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body);
        return;
      }
      if (xhr.status === 401) unauthorized(token ? { Authorization: `Bearer ${token}` } : {});
      const err = body && body.error ? body.error : {};
      reject(new ApiError(xhr.status, err.code || `http_${xhr.status}`, err.message || xhr.statusText || 'upload failed',
        err.params));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'network error'));
    xhr.send(form);
  });
}

/** Fetch a protected binary (an image) with the token and return an object URL for ``<img src>``. */
export async function blobUrl(path) {
  const sent = headers({ Accept: '*/*' });
  const response = await fetch(withKb(path), { headers: sent });
  if (!response.ok) throw await errorOf(response, sent);
  return URL.createObjectURL(await response.blob());
}

/** Small in-memory cache for lists the pages share (topics, documents for filters). */
const cache = new Map();
export async function cached(name, loader, maxAgeMs = 15000) {
  const key = `${currentKb()}|${name}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < maxAgeMs) return hit.value;
  const value = await loader();
  cache.set(key, { at: Date.now(), value });
  return value;
}

export function invalidate(prefix = '') {
  for (const key of [...cache.keys()]) if (key.slice(key.indexOf('|') + 1).startsWith(prefix)) cache.delete(key);
}
