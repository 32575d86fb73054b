"""Browse tools (read-only): a node with its context, a section's children, a document's outline."""

from __future__ import annotations

import uuid

from langchain_core.tools import tool
from langgraph.prebuilt import ToolRuntime
from pydantic import BaseModel, Field

from dropqa.store import nodes as node_store
from dropqa.store.scope import MAX_VERSION
from dropqa.tools.hits import Hit
from dropqa.tools.results import ToolResult, failed, found
from dropqa.tools.search_tools import services_of
from dropqa.tools.services import Services


def _uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


class NodeArgs(BaseModel):
    node_id: str = Field(description="a node id from a search result")


def get_node_content_impl(svc: Services, node_id: str) -> ToolResult:
    nid = _uuid(node_id)
    node = node_store.get_node(svc.db, nid) if nid else None
    if node is None:
        return failed("get_node_content", f"no node with id {node_id}")
    parents = node_store.ancestors(svc.db, node["node_id"])
    context = [{"title": p["title"], "summary": p["summary"], "depth": p["depth"]} for p in parents]
    hit = Hit.from_row(node, "browse")
    return ToolResult(tool="get_node_content", status=f"node in {hit.breadcrumb}", hits=[hit],
                      data={"content": node["content"], "parents": context})


@tool("get_node_content", args_schema=NodeArgs, response_format="content_and_artifact")
def get_node_content(node_id: str, runtime: ToolRuntime) -> tuple[str, dict]:
    """Full text of one node, with the titles and summaries of the sections above it."""
    res = get_node_content_impl(services_of(runtime), node_id)
    if res.error:
        return res.as_tool_output()
    parents = "\n".join(f"{'  ' * p['depth']}{p['title']}: {p['summary'] or ''}" for p in res.data["parents"])
    return res.as_tool_output(f"{res.render(limit=0)}\n{parents}\n---\n{res.data['content']}")


def get_section_children_impl(svc: Services, node_id: str) -> ToolResult:
    nid = _uuid(node_id)
    if nid is None or node_store.get_node(svc.db, nid) is None:
        return failed("get_section_children", f"no node with id {node_id}")
    rows = node_store.children(svc.db, nid)
    return found("get_section_children", [Hit.from_row(r, "browse") for r in rows], what="children")


@tool("get_section_children", args_schema=NodeArgs, response_format="content_and_artifact")
def get_section_children(node_id: str, runtime: ToolRuntime) -> tuple[str, dict]:
    """The sub-sections and passages directly inside a section, in document order."""
    res = get_section_children_impl(services_of(runtime), node_id)
    return res.as_tool_output(res.render(limit=50))


class StructureArgs(BaseModel):
    document: str = Field(description="document id, or (part of) its file name")
    version: int | None = Field(None, ge=1, le=MAX_VERSION)
    max_depth: int = Field(3, ge=1, le=10)


def get_document_structure_impl(svc: Services, args: StructureArgs) -> ToolResult:
    from dropqa.text.segment import query_terms

    doc_id = _uuid(args.document)
    if doc_id is None:
        candidates = node_store.find_documents(svc.db, [args.document, *query_terms(args.document)])
        candidates = [c for c in candidates if c["hits"] > 0]
        if not candidates:
            return failed("get_document_structure", f"no document matches {args.document!r}")
        doc_id, current = candidates[0]["document_id"], candidates[0]["current_version"]
    else:
        from dropqa.store.documents import get_document

        doc = get_document(svc.db, doc_id)
        if doc is None:
            return failed("get_document_structure", f"no document with id {args.document}")
        current = doc["current_version"]
    version = min(args.version or current, current)
    rows = node_store.outline(svc.db, doc_id, version, max_depth=args.max_depth)
    tree = [{"node_id": str(r["node_id"]), "depth": r["depth"], "title": r["title"], "summary": r["summary"],
             "page": (r["metadata"] or {}).get("page")} for r in rows]
    name = rows[0]["title"] if rows else str(doc_id)
    return ToolResult(tool="get_document_structure", status=f"{len(tree) - 1} sections in {name} v{version}",
                      data={"document_id": str(doc_id), "version": version, "tree": tree})


@tool("get_document_structure", args_schema=StructureArgs, response_format="content_and_artifact")
def get_document_structure(document: str, runtime: ToolRuntime, version: int | None = None,
                           max_depth: int = 3) -> tuple[str, dict]:
    """The outline of a document: its sections with titles and summaries (for "what does chapter 3 say")."""
    res = get_document_structure_impl(services_of(runtime), StructureArgs(document=document, version=version,
                                                                          max_depth=max_depth))
    if res.error:
        return res.as_tool_output()
    lines = [res.render(limit=0)]
    lines += [f"{'  ' * t['depth']}[{t['node_id']}] {t['title']}: {t['summary'] or ''}" for t in res.data["tree"]]
    return res.as_tool_output("\n".join(lines))


