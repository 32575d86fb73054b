"""Search tools (read-only): keyword, full-text, semantic. Each honours the version filter.

The database, settings and embedder come from the graph's run-time context through
``ToolRuntime`` — never from a global — so the same tools run under the API, the
CLI, the evals and LangGraph Studio.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.tools import tool
from langgraph.prebuilt import ToolRuntime
from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from dropqa.store import search
from dropqa.store.scope import MAX_VERSION, Scope
from dropqa.text.segment import query_terms
from dropqa.tools.context import ToolContext
from dropqa.tools.hits import Hit
from dropqa.tools.results import ToolResult, failed, found
from dropqa.tools.retrieval import score_hits, term_weights
from dropqa.tools.services import Services


def services_of(runtime: ToolRuntime[ToolContext, Any]) -> Services:
    return runtime.context.services


def scope_of(runtime: ToolRuntime[ToolContext, Any], version: int | None) -> Scope:
    """The version asked for, else the run's (the graph's ``State.version``; a plain dict state in tests),
    and the asker's topic filter, which holds for every tool."""
    state = runtime.state

    def field(name: str) -> Any:
        return state.get(name) if isinstance(state, Mapping) else getattr(state, name, None)

    if version is None:
        version = field("version")
    return Scope(version=version, topics=tuple(field("topic_filter") or ()))


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
        rows = search.candidates_for_fuzzy(svc.db, terms, scope, svc.settings.retrieval.candidate_k * 4)
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


@tool("keyword_search", args_schema=KeywordArgs, response_format="content_and_artifact")
def keyword_search(pattern: str, runtime: ToolRuntime, mode: str = "exact", case_sensitive: bool = False,
                   version: int | None = None, limit: int = 10) -> tuple[str, dict]:
    """Find exact names, numbers, codes or phrases (mode=exact), a regular expression (mode=regex),
    or an approximate phrase (mode=fuzzy). Best for names and numbers."""
    args = KeywordArgs(pattern=pattern, mode=mode, case_sensitive=case_sensitive, version=version,  # type: ignore[arg-type]
                       limit=limit)
    return keyword_search_impl(services_of(runtime), args, scope_of(runtime, version)).as_tool_output()


class TextQueryArgs(BaseModel):
    query: str = Field(min_length=1, max_length=1000, description="what to look for, in words")
    version: int | None = Field(None, ge=1, le=MAX_VERSION,
                                description="search version N of each document (default: latest)")
    limit: int = Field(8, ge=1, le=50)


def fulltext_search_impl(svc: Services, args: TextQueryArgs, scope: Scope) -> ToolResult:
    terms = query_terms(args.query)
    rows = search.fulltext(svc.db, terms, scope, args.limit)
    hits = [Hit.from_row(r, "fulltext") for r in rows]
    score_hits(svc, hits, terms, term_weights(svc, terms, scope), svc.embedder.embed_query(args.query).tolist())
    return found("fulltext_search", hits)


@tool("fulltext_search", args_schema=TextQueryArgs, response_format="content_and_artifact")
def fulltext_search(query: str, runtime: ToolRuntime, version: int | None = None, limit: int = 8) -> tuple[str, dict]:
    """Full-text search (jieba-segmented, BM25-style ranking; titles weigh more than body text).
    Best for several keywords at once."""
    args = TextQueryArgs(query=query, version=version, limit=limit)
    return fulltext_search_impl(services_of(runtime), args, scope_of(runtime, version)).as_tool_output()


def semantic_search_impl(svc: Services, args: TextQueryArgs, scope: Scope) -> ToolResult:
    vec = svc.embedder.embed_query(args.query).tolist()
    rows = search.semantic(svc.db, vec, svc.embedder.name, svc.embedder.dimensions, scope, args.limit)
    hits = []
    for r in rows:
        h = Hit.from_row(r, "semantic")
        h.metadata["semantic"] = float(r["score"])
        hits.append(h)
    terms = query_terms(args.query)
    score_hits(svc, hits, terms, term_weights(svc, terms, scope), vec)
    return found("semantic_search", hits)


@tool("semantic_search", args_schema=TextQueryArgs, response_format="content_and_artifact")
def semantic_search(query: str, runtime: ToolRuntime, version: int | None = None, limit: int = 8) -> tuple[str, dict]:
    """Semantic (embedding) search: finds passages that mean the same thing in other words or in the
    other language. Best for vague or descriptive questions."""
    args = TextQueryArgs(query=query, version=version, limit=limit)
    return semantic_search_impl(services_of(runtime), args, scope_of(runtime, version)).as_tool_output()
