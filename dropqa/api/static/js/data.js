// Reading the API's lists in one place, so the pages share one idea of each shape.

import { api, cached } from './api.js';

/** ``{documents: [...]}``, ``{items: [...]}`` or a bare list → the list. */
export function listOf(reply, ...keys) {
  if (Array.isArray(reply)) return reply;
  for (const key of [...keys, 'items', 'results', 'data']) if (reply && Array.isArray(reply[key])) return reply[key];
  return [];
}

export function topicCount(topic) {
  return Number(topic.document_count ?? topic.documents ?? topic.doc_count ?? topic.count ?? 0) || 0;
}

export async function topics() {
  return cached('topics', async () => {
    const list = listOf(await api('/api/topics'), 'topics').slice();
    list.sort((a, b) => topicCount(b) - topicCount(a) || String(a.name).localeCompare(String(b.name)));
    return list;
  });
}

export async function documents(query = {}) {
  const key = `documents:${JSON.stringify(query)}`;
  return cached(key, async () => {
    const reply = await api('/api/documents', { query });
    const docs = listOf(reply, 'documents');
    return { documents: docs, total: typeof reply.total === 'number' ? reply.total : null };
  }, 3000);
}

/** Highest version any document has (for the QA version filter). */
export async function maxVersion() {
  try {
    const { documents: docs } = await documents({ limit: 1000 });
    return docs.reduce((m, d) => Math.max(m, Number(d.current_version) || 1), 1);
  } catch {
    return 1;
  }
}
