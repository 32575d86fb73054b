// Uploads and their ingestion jobs, kept while the user moves between pages.
// Each file: uploading (bytes) → queued → parsing → enriching → embedding → done | failed (the job's states).
// The card shows the stages of the design: parsing → chunking → embedding → stored (see ``step``), with the
// embedded share while embedding. Job states come from GET /api/jobs/stream (SSE); GET /api/jobs/{id} is the
// safety net.

import { api, invalidate, stream, upload } from './api.js';
import { errorOf, errorText } from './i18n.js';

export const STATES = ['uploading', 'queued', 'parsing', 'enriching', 'embedding', 'done'];
/** The stages a card shows, in order. */
export const STEPS = ['uploading', 'queued', 'parsing', 'chunking', 'embedding', 'stored'];
const TERMINAL = new Set(['done', 'failed', 'cancelled', 'rejected']);
const PERCENT = { queued: 24, parsing: 40, enriching: 58, embedding: 76, writing: 90, done: 100, failed: 100,
  cancelled: 100, rejected: 100 };

const items = [];
const listeners = new Set();
let nextKey = 1;
let watcher = null;

export function list() {
  return items;
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit(item) {
  for (const fn of listeners) fn(item);
}

export function isTerminal(item) {
  return TERMINAL.has(item.state);
}

/** The stage a card shows: the job's state, with normalising, splitting and summarising (``enriching``) and
 *  writing the version (stage ``writing``) shown as chunking, and a finished job as stored. */
export function step(item) {
  if (item.state === 'done') return 'stored';
  if (item.state === 'enriching' || item.stage === 'writing' || item.stage === 'enriching') return 'chunking';
  return item.state;
}

/** Passages embedded so far and to embed (while embedding; null when the job has not said). */
export function embedded(item) {
  const total = Number(item.toEmbed);
  return item.state === 'embedding' && item.stage === 'embedding' && total > 0
    ? { done: Math.min(Number(item.embedded) || 0, total), total } : null;
}

/** 0–100 for the progress bar; while embedding it moves with the share of passages embedded. */
export function percent(item) {
  if (item.state === 'uploading') return Math.round(20 * (item.uploaded || 0));
  const share = embedded(item);
  if (share) return Math.round(PERCENT.embedding + ((PERCENT.writing + 8 - PERCENT.embedding) * share.done) / share.total);
  const stage = item.stage && PERCENT[item.stage] > (PERCENT[item.state] || 0) ? item.stage : item.state;
  return PERCENT[stage] ?? 10;
}

export function clearFinished() {
  for (let i = items.length - 1; i >= 0; i -= 1) if (isTerminal(items[i])) items.splice(i, 1);
  emit(null);
}

/** Start uploading files (a FileList or array); three at a time, one request per file for per-file progress. */
export function add(files) {
  const fresh = [...files].map((file) => ({ key: nextKey++, file, name: file.name, size: file.size,
    state: 'uploading', uploaded: 0, jobId: null, documentId: null, outcome: null, error: null, stage: null }));
  items.unshift(...fresh.slice().reverse());
  emit(null);
  const queue = fresh.slice();
  const worker = async () => {
    while (queue.length) await send(queue.shift());
  };
  for (let i = 0; i < Math.min(3, queue.length); i += 1) worker();
  return fresh;
}

async function send(item) {
  try {
    const reply = await upload([item.file], (fraction) => {
      item.uploaded = fraction;
      emit(item);
    });
    item.file = null;
    applyUpload(item, entriesOf(reply)[0] || {});
    if (!item.jobId && !isTerminal(item)) item.state = 'done';
  } catch (err) {
    item.state = 'failed';
    item.error = errorOf(err);
  }
  emit(item);
  if (isTerminal(item)) invalidate();
  watch();
}

/** The per-file entries of an upload reply (``{success, documents: [UploadItem]}``). */
function entriesOf(reply) {
  if (Array.isArray(reply)) return reply;
  if (!reply || typeof reply !== 'object') return [];
  for (const key of ['documents', 'files', 'items']) if (Array.isArray(reply[key])) return reply[key];
  return [reply];
}

/** An upload item: ``status`` queued (with ``job_id``/``job_state``), unchanged or rejected. */
function applyUpload(item, entry) {
  item.jobId = entry.job_id || null;
  item.documentId = entry.document_id || null;
  if (entry.filename && entry.filename !== item.name) item.storedAs = entry.filename;
  if (entry.status === 'rejected') {
    item.state = 'rejected';
    item.error = errorText(entry.error_code, entry.error_params, entry.error || 'rejected');
  } else if (entry.status === 'unchanged') {
    item.state = 'done';
    item.outcome = 'unchanged';
  } else {
    item.state = entry.job_state || 'queued';
  }
}

/** A job (``JobInfo``) from the stream or ``GET /api/jobs/{id}``. */
function applyJob(item, job) {
  if (job.document_id) item.documentId = job.document_id;
  if (job.outcome) item.outcome = job.outcome;
  item.error = job.error ? errorText(null, null, job.error) : (job.state === 'failed' ? item.error : null);
  if (job.progress && typeof job.progress === 'object' && job.progress.stage) {
    item.stage = job.progress.stage;
    if (job.progress.embedded !== undefined) item.embedded = job.progress.embedded;
    if (job.progress.to_embed !== undefined) item.toEmbed = job.progress.to_embed;
  }
  if (job.state && !(isTerminal(item) && !TERMINAL.has(job.state))) item.state = job.state;
}

function active() {
  return items.filter((i) => i.jobId && !isTerminal(i));
}

function onJob(job) {
  if (!job || typeof job !== 'object' || !job.id) return;
  for (const item of items) {
    if (item.jobId && item.jobId === job.id) {
      const was = item.state;
      applyJob(item, job);
      emit(item);
      if (isTerminal(item) && was !== item.state) invalidate();
    }
  }
}

/** Follow active jobs until all have finished: ``GET /api/jobs/stream?ids=…`` (SSE) for live states,
 *  reopened when new jobs arrive; ``GET /api/jobs/{id}`` polling as the safety net. */
function watch() {
  const ids = active().map((i) => i.jobId).sort();
  if (!ids.length) return;
  if (watcher && watcher.ids.join() === ids.join()) return;
  if (watcher) watcher.controller.abort();
  const controller = new AbortController();
  const mine = { ids, controller };
  watcher = mine;
  const qs = ids.map((id) => `ids=${encodeURIComponent(id)}`).join('&');
  (async () => {
    try {
      for await (const { event, data } of stream(`/api/jobs/stream?${qs}`, { signal: controller.signal, scoped: false })) {
        if (event === 'job') onJob(data);
        if (event === 'end') break;
      }
    } catch {
      // no stream (a proxy that buffers, an older server): the poller below does the work
    }
  })();
  (async () => {
    while (active().length && !controller.signal.aborted) {
      await new Promise((r) => setTimeout(r, 2500));
      if (controller.signal.aborted) return;
      await Promise.all(active().map(async (item) => {
        try {
          onJob(await api(`/api/jobs/${encodeURIComponent(item.jobId)}`, { scoped: false }));
        } catch (err) {
          if (err.status === 404) {
            item.state = 'failed';
            item.error = errorOf(err);
            emit(item);
          }
        }
      }));
    }
    if (watcher === mine) {
      controller.abort();
      watcher = null;
      watch();
    }
  })();
}
