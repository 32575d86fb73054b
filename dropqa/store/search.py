"""Search queries: full-text (weighted tsvector), semantic (pgvector), keyword, title index.

Every function returns plain dicts with the node's id, document, version,
breadcrumb, content, metadata and a score, restricted by a :class:`Scope`.
Segmentation happens before these functions are called (``dropqa.text.segment``).
"""

from __future__ import annotations

import re
from typing import Any

import psycopg

from dropqa.store.db import Database
from dropqa.store.scope import Scope
from dropqa.store.vectors import pg_vector, vector_expr

NODE_COLUMNS = (
    "n.id AS node_id, n.document_id, n.version, n.node_type, n.title, n.content, n.summary, n.breadcrumb, "
    "n.position, n.depth, n.parent_id, n.metadata, d.filename AS document_name, d.current_version, "
    "(SELECT v.metadata->'subjects' FROM document_versions v WHERE v.document_id = n.document_id "
    " AND v.version = n.version) AS subjects"
)

_OR_QUERY = (
    "(SELECT coalesce(string_agg(q::text, ' | '), '')::tsquery FROM unnest(%(terms)s::text[]) t, "
    "plainto_tsquery('simple', t) q WHERE q::text <> '')"
)


def fulltext(db: Database, terms: list[str], scope: Scope, limit: int,
             weights: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """Any term matching, ranked first by the idf mass of the question's terms a node holds
    (``weights``: a rare term counts more than one every node has), then by ``ts_rank_cd`` over
    the A/B/C-weighted vector (term density and proximity).

    ``matched`` lists which query terms each hit contains, so callers can weigh
    coverage by term rarity.
    """
    if not terms:
        return []
    where, params = scope.sql()
    idf = [float((weights or {}).get(t, 1.0)) for t in terms]
    sql = (
        f"WITH q AS (SELECT {_OR_QUERY} AS query) "
        "SELECT * FROM ("
        f"SELECT {NODE_COLUMNS}, ts_rank_cd('{{0.1, 0.2, 0.6, 1.0}}', n.search_vector, q.query, 32) AS score, "
        "ARRAY(SELECT t FROM unnest(%(terms)s::text[]) t "
        "      WHERE n.search_vector @@ plainto_tsquery('simple', t)) AS matched, "
        "(SELECT coalesce(sum(x.w), 0) FROM unnest(%(terms)s::text[], %(idf)s::float8[]) AS x(t, w) "
        "  WHERE n.search_vector @@ plainto_tsquery('simple', x.t)) AS idf_mass "
        "FROM nodes n JOIN documents d ON d.id = n.document_id, q "
        f"WHERE n.search_vector @@ q.query AND {where}) hits "
        "ORDER BY idf_mass DESC, score DESC, position, node_id LIMIT %(limit)s"
    )
    with db.connection() as conn:
        return conn.execute(sql, {**params, "terms": terms, "idf": idf, "limit": limit}).fetchall()  # type: ignore[arg-type]


def _terms_matching(db: Database, terms: list[str], scope: Scope, match: str) -> set[str]:
    """The terms ``t`` for which some visible passage ``n`` (of document ``d``) satisfies the SQL ``match``."""
    if not terms:
        return set()
    where, params = scope.sql()
    sql = ("SELECT t AS term FROM unnest(%(terms)s::text[]) t WHERE EXISTS (SELECT 1 FROM nodes n "
           f"JOIN documents d ON d.id = n.document_id WHERE ({match}) AND {where})")
    with db.connection() as conn:
        rows = conn.execute(sql, {**params, "terms": terms}).fetchall()  # type: ignore[arg-type]
    return {r["term"] for r in rows}


def present_terms(db: Database, terms: list[str], scope: Scope) -> set[str]:
    """The terms some visible passage holds (an existence test per term, cheap on the GIN index)."""
    return _terms_matching(db, terms, scope, "n.search_vector @@ plainto_tsquery('simple', t)")


def written_terms(db: Database, terms: list[str], scope: Scope) -> set[str]:
    """The terms some visible passage (or a document's file name) writes, as text rather than as an indexed
    word: "负责" in "负责人", "零售" anywhere. A scan per term: for the few terms the word index never saw."""
    return _terms_matching(db, terms, scope,
                           "strpos(lower(n.content), lower(t)) > 0 OR strpos(lower(d.filename), lower(t)) > 0")


# what may stand between two characters of a Chinese word written in full: at most two characters, no break
_BETWEEN = r"[^[:space:]，。；、：:,.;（）()]{0,2}"


def written_spread(db: Database, terms: list[str], scope: Scope) -> set[str]:
    """The Chinese terms some visible passage writes in full, their characters in order with at most two others
    between each, in one phrase: 年假 as 年休假, 深交所 as 深圳证交所 — the short form a question uses of a word the
    documents write out. A regular-expression scan per term: for the few terms written nowhere as they are."""
    terms = [t for t in terms if 2 <= len(t) <= 4]
    if not terms:
        return set()
    patterns = [_BETWEEN.join(re.escape(c) for c in t) for t in terms]
    where, params = scope.sql()
    sql = ("SELECT x.t AS term FROM unnest(%(terms)s::text[], %(patterns)s::text[]) AS x(t, p) WHERE EXISTS "
           f"(SELECT 1 FROM nodes n JOIN documents d ON d.id = n.document_id WHERE n.content ~ x.p AND {where})")
    with db.connection() as conn:
        rows = conn.execute(sql, {**params, "terms": terms, "patterns": patterns}).fetchall()  # type: ignore[arg-type]
    return {r["term"] for r in rows}


def filename_terms(db: Database, terms: list[str], scope: Scope) -> set[str]:
    """The terms a visible document's file name writes ("绩效考核" of 2024年度绩效考核.xlsx, whose sheets never
    say it): they name a document, so the collection holds them."""
    return _terms_matching(db, terms, scope, "strpos(lower(d.filename), lower(t)) > 0")


def passages_writing(db: Database, words: list[str], scope: Scope, limit: int) -> list[str]:
    """The text (breadcrumb, then content) of up to ``limit`` visible passages that write one of ``words`` as text
    (a scan, as :func:`written_terms`; the scope is a document or two): where a phrase's words may stand
    together."""
    if not words:
        return []
    where, params = scope.sql()
    sql = ("SELECT coalesce(n.breadcrumb, '') || E'\\n' || n.content AS text FROM nodes n "
           "JOIN documents d ON d.id = n.document_id WHERE EXISTS (SELECT 1 FROM unnest(%(words)s::text[]) w "
           "WHERE strpos(lower(n.content), lower(w)) > 0 OR strpos(lower(coalesce(n.breadcrumb, '')), lower(w)) > 0) "
           f"AND {where} ORDER BY n.position, n.id LIMIT %(limit)s")
    with db.connection() as conn:
        rows = conn.execute(sql, {**params, "words": words, "limit": limit}).fetchall()  # type: ignore[arg-type]
    return [r["text"] for r in rows]


def term_frequencies(db: Database, terms: list[str], scope: Scope) -> tuple[dict[str, int], int]:
    """How many visible nodes contain each term, and how many visible nodes there are."""
    if not terms:
        return {}, 0
    where, params = scope.sql()
    sql = (
        "SELECT t AS term, (SELECT count(*) FROM nodes n JOIN documents d ON d.id = n.document_id "
        f"  WHERE n.search_vector @@ plainto_tsquery('simple', t) AND {where}) AS df "
        "FROM unnest(%(terms)s::text[]) t"
    )
    total_sql = f"SELECT count(*) AS c FROM nodes n JOIN documents d ON d.id = n.document_id WHERE {where}"
    with db.connection() as conn:
        rows = conn.execute(sql, {**params, "terms": terms}).fetchall()  # type: ignore[arg-type]
        total = conn.execute(total_sql, params).fetchone()  # type: ignore[arg-type]
    return {r["term"]: int(r["df"]) for r in rows}, int(total["c"] if total else 0)


def semantic(db: Database, vector: list[float], model_name: str, dims: int, scope: Scope,
             limit: int) -> list[dict[str, Any]]:
    """Cosine similarity over the model's HNSW index (iterative scan keeps filtered recall)."""
    where, params = scope.sql()
    expr = vector_expr("e.embedding", dims)
    qv = f"%(vec)s::vector({int(dims)})"
    sql = (
        f"SELECT {NODE_COLUMNS}, 1 - ({expr} <=> {qv}) AS score "
        "FROM embeddings e JOIN nodes n ON n.id = e.node_id JOIN documents d ON d.id = n.document_id "
        f"WHERE e.model_name = %(model)s AND {where} "
        f"ORDER BY {expr} <=> {qv} LIMIT %(limit)s"
    )
    with db.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL hnsw.ef_search = 100")
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        return conn.execute(
            sql, {**params, "vec": pg_vector(vector), "model": model_name,
                  "limit": limit},
        ).fetchall()  # type: ignore[arg-type]


class RegexTimeout(Exception):
    """The regular expression ran longer than the configured limit."""


class BadPattern(Exception):
    """PostgreSQL rejected the regular expression."""


def keyword(db: Database, pattern: str, mode: str, case_sensitive: bool, scope: Scope, limit: int,
            timeout_ms: int) -> list[dict[str, Any]]:
    """Exact substring or POSIX regex over content and titles, under a statement timeout."""
    where, params = scope.sql()
    if mode == "regex":
        op = "~" if case_sensitive else "~*"
        cond = f"(n.content {op} %(pat)s OR coalesce(n.title, '') {op} %(pat)s)"
    else:
        op = "LIKE" if case_sensitive else "ILIKE"
        cond = f"(n.content {op} %(pat)s OR coalesce(n.title, '') {op} %(pat)s)"
        pattern = "%" + pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    sql = (
        f"SELECT {NODE_COLUMNS}, 1.0 AS score FROM nodes n JOIN documents d ON d.id = n.document_id "
        f"WHERE {cond} AND {where} ORDER BY d.filename, n.position, n.id LIMIT %(limit)s"
    )
    with db.connection() as conn:
        try:
            with conn.transaction():
                conn.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
                return conn.execute(sql, {**params, "pat": pattern, "limit": limit}).fetchall()  # type: ignore[arg-type]
        except psycopg.errors.QueryCanceled as exc:
            raise RegexTimeout(f"the pattern ran longer than {timeout_ms} ms and was stopped") from exc
        except (psycopg.errors.InvalidRegularExpression, psycopg.errors.DataException) as exc:
            raise BadPattern(str(exc).split("\n")[0]) from exc


def title_index(db: Database, vector: list[float], terms: list[str], model_name: str, dims: int,
                scope: Scope, limit: int) -> list[dict[str, Any]]:
    """File and sheet titles (seed 004 §5.2): semantic similarity plus a term-match flag."""
    where, params = scope.sql(n="ti", d="d", node_types=False)
    expr = vector_expr("ti.embedding", dims)
    qv = f"%(vec)s::vector({int(dims)})"
    sql = (
        f"WITH q AS (SELECT {_OR_QUERY} AS query) "
        f"SELECT ti.document_id, ti.node_id, ti.title_text, d.filename AS document_name, ti.version, "
        f"1 - ({expr} <=> {qv}) AS score, "
        "coalesce(ts_rank_cd(ti.search_vector, q.query, 32), 0) AS term_score "
        "FROM title_index ti JOIN documents d ON d.id = ti.document_id, q "
        f"WHERE ti.model_name = %(model)s AND {where} "
        f"ORDER BY {expr} <=> {qv} LIMIT %(limit)s"
    )
    with db.connection() as conn:
        return conn.execute(
            sql, {**params, "terms": terms, "vec": pg_vector(vector),
                  "model": model_name, "limit": limit},
        ).fetchall()  # type: ignore[arg-type]


def similarities(db: Database, scope: Scope, node_ids: list[str], vector: list[float], model_name: str,
                 dims: int) -> dict[str, float]:
    """Cosine similarity of the query to specific nodes (for hits found by full-text only)."""
    if not node_ids:
        return {}
    expr = vector_expr("e.embedding", dims)
    in_bases, params = scope.kb_sql("d")
    with db.connection() as conn:
        rows = conn.execute(
            f"SELECT e.node_id, 1 - ({expr} <=> %(vec)s::vector({int(dims)})) AS sim FROM embeddings e "
            "JOIN nodes n ON n.id = e.node_id JOIN documents d ON d.id = n.document_id "
            f"WHERE e.model_name = %(model)s AND e.node_id = ANY(%(ids)s::uuid[]) AND {in_bases}",
            {**params, "vec": pg_vector(vector), "model": model_name, "ids": node_ids},
        ).fetchall()
    return {str(r["node_id"]): float(r["sim"]) for r in rows}
