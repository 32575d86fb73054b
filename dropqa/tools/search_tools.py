"""Search tools (read-only): keyword, full-text, semantic. Each honours the version filter.

Each tool is one :class:`~dropqa.tools.spec.ToolSpec` (the agent's tool and the MCP tool); the database,
settings and embedder are passed in — never a global — so the same tools run under the API, the CLI, the
evals, MCP and LangGraph Studio.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from dropqa.retrieval.hits import Hit
from dropqa.retrieval.search import score_hits, term_weights
from dropqa.services import Services
from dropqa.store import search
from dropqa.store.scope import MAX_VERSION, Scope
from dropqa.text.segment import query_terms
from dropqa.tools.results import ToolResult, failed, found
from dropqa.tools.spec import ToolSpec


class KeywordArgs(BaseModel):
    pattern: str = Field(min_length=1, max_length=500, description="text, regex or approximate phrase to find")
    mode: Literal["exact", "regex", "fuzzy"] = Field("exact", description="exact substring, POSIX regex, or fuzzy")
    case_sensitive: bool = False
    version: int | None = Field(None, ge=1, le=MAX_VERSION,
                                description="search version N of each document (default: latest)")
    limit: int = Field(10, ge=1, le=50)


def keyword_search_impl(svc: Services, args: KeywordArgs, scope: Scope) -> ToolResult:
    if args.mode == "fuzzy":
        terms = query_terms(args.pattern)
        rows = search.fulltext(svc.db, terms, scope, svc.settings.retrieval.candidate_k * 4)
        scored = []
        for r in rows:
            s = fuzz.partial_ratio(args.pattern.lower(), (r["content"] or "").lower())
            if s >= svc.settings.retrieval.fuzzy_min_score:
                r["score"] = s / 100.0
                scored.append(r)
        scored.sort(key=lambda r: -r["score"])
        hits = [Hit.from_row(r, "keyword") for r in scored[: args.limit]]
    else:
        try:
            rows = search.keyword(svc.db, args.pattern, args.mode, args.case_sensitive, scope, args.limit,
                                  svc.settings.database.regex_timeout_ms)
        except (search.RegexTimeout, search.BadPattern) as exc:
            return failed("keyword_search", f"{type(exc).__name__}: {exc}")
        hits = [Hit.from_row(r, "keyword") for r in rows]
    for h in hits:
        h.relevance = round(h.score, 3)
    return found("keyword_search", hits)


def in_scope(impl: Callable[[Services, Any, Scope], ToolResult]) -> Callable[[Services, Any, Scope], ToolResult]:
    """A search run in the run's scope, at the version the call asks for (else the run's)."""

    def run(svc: Services, args: KeywordArgs | TextQueryArgs, run_scope: Scope) -> ToolResult:
        return impl(svc, args, run_scope if args.version is None else replace(run_scope, version=args.version))

    return run


KEYWORD_SEARCH = ToolSpec(
    name="keyword_search", args=KeywordArgs, mcp=True,
    description="Find exact names, numbers, codes or phrases (mode=exact), a regular expression (mode=regex), "
                "or an approximate phrase (mode=fuzzy). Best for names and numbers.",
    run=in_scope(keyword_search_impl))


class TextQueryArgs(BaseModel):
    query: str = Field(min_length=1, max_length=1000, description="what to look for, in words")
    version: int | None = Field(None, ge=1, le=MAX_VERSION,
                                description="search version N of each document (default: latest)")
    limit: int = Field(8, ge=1, le=50)


def fulltext_search_impl(svc: Services, args: TextQueryArgs, scope: Scope) -> ToolResult:
    terms = query_terms(args.query)
    rows = search.fulltext(svc.db, terms, scope, args.limit)
    hits = [Hit.from_row(r, "fulltext") for r in rows]
    score_hits(svc, scope, hits, terms, term_weights(svc, terms, scope), svc.embedder.embed_query(args.query).tolist())
    return found("fulltext_search", hits)


FULLTEXT_SEARCH = ToolSpec(name="fulltext_search", args=TextQueryArgs, run=in_scope(fulltext_search_impl), mcp=True,
                           description="Full-text search (jieba-segmented, BM25-style ranking; titles weigh more "
                                       "than body text). Best for several keywords at once.")


def semantic_search_impl(svc: Services, args: TextQueryArgs, scope: Scope) -> ToolResult:
    vec = svc.embedder.embed_query(args.query).tolist()
    rows = search.semantic(svc.db, vec, svc.embedder.name, svc.embedder.dimensions, scope, args.limit)
    hits = []
    for r in rows:
        h = Hit.from_row(r, "semantic")
        h.metadata["semantic"] = float(r["score"])
        hits.append(h)
    terms = query_terms(args.query)
    score_hits(svc, scope, hits, terms, term_weights(svc, terms, scope), vec)
    return found("semantic_search", hits)


SEMANTIC_SEARCH = ToolSpec(name="semantic_search", args=TextQueryArgs, run=in_scope(semantic_search_impl), mcp=True,
                           description="Semantic (embedding) search: finds passages that mean the same thing in "
                                       "other words or in the other language. Best for vague or descriptive "
                                       "questions.")
