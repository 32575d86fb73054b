"""Browse tools (read-only): a node with its context, a section's children, a document's outline."""

from __future__ import annotations

from pydantic import BaseModel, Field

from dropqa.retrieval.hits import Hit
from dropqa.services import Services
from dropqa.store import nodes as node_store
from dropqa.store.scope import MAX_VERSION, Scope
from dropqa.tools.documents import find_document, parse_id
from dropqa.tools.results import ToolResult, failed, found
from dropqa.tools.spec import ToolSpec


class NodeArgs(BaseModel):
    node_id: str = Field(description="a node id from a search result")


def get_node_content_impl(svc: Services, scope: Scope, node_id: str) -> ToolResult:
    nid = parse_id(node_id)
    node = node_store.get_node(svc.db, scope, nid) if nid else None
    if node is None:
        return failed("get_node_content", f"no node with id {node_id}")
    parents = node_store.ancestors(svc.db, scope, node["node_id"])
    context = [{"title": p["title"], "summary": p["summary"], "depth": p["depth"]} for p in parents]
    hit = Hit.from_row(node, "browse")
    return ToolResult(tool="get_node_content", status=f"node in {hit.breadcrumb}", hits=[hit],
                      data={"content": node["content"], "parents": context})


def _node_text(res: ToolResult) -> str | None:
    if res.error:
        return None
    parents = "\n".join(f"{'  ' * p['depth']}{p['title']}: {p['summary'] or ''}" for p in res.data["parents"])
    return f"{res.render(limit=0)}\n{parents}\n---\n{res.data['content']}"


GET_NODE_CONTENT = ToolSpec(
    name="get_node_content", args=NodeArgs, mcp=True, text=_node_text,
    description="Full text of one node, with the titles and summaries of the sections above it.",
    run=lambda svc, args, scope: get_node_content_impl(svc, scope, args.node_id))


def get_section_children_impl(svc: Services, scope: Scope, node_id: str) -> ToolResult:
    nid = parse_id(node_id)
    if nid is None or node_store.get_node(svc.db, scope, nid) is None:
        return failed("get_section_children", f"no node with id {node_id}")
    rows = node_store.children(svc.db, scope, nid)
    return found("get_section_children", [Hit.from_row(r, "browse") for r in rows], what="children")



GET_SECTION_CHILDREN = ToolSpec(
    name="get_section_children", args=NodeArgs, text=lambda res: res.render(limit=50),
    description="The sub-sections and passages directly inside a section, in document order.",
    run=lambda svc, args, scope: get_section_children_impl(svc, scope, args.node_id))


class StructureArgs(BaseModel):
    document: str = Field(description="document id, or (part of) its file name")
    version: int | None = Field(None, ge=1, le=MAX_VERSION)
    max_depth: int = Field(3, ge=1, le=10)


def get_document_structure_impl(svc: Services, scope: Scope, args: StructureArgs) -> ToolResult:
    doc = find_document(svc, scope, args.document)
    if doc is None:
        why = f"no document with id {args.document}" if parse_id(args.document) else \
            f"no document matches {args.document!r}"
        return failed("get_document_structure", why)
    doc_id, current = doc["id"], doc["current_version"]
    version = min(args.version or current, current)
    rows = node_store.outline(svc.db, scope, doc_id, version, max_depth=args.max_depth)
    tree = [{"node_id": str(r["node_id"]), "depth": r["depth"], "title": r["title"], "summary": r["summary"],
             "page": (r["metadata"] or {}).get("page")} for r in rows]
    name = rows[0]["title"] if rows else str(doc_id)
    return ToolResult(tool="get_document_structure", status=f"{len(tree) - 1} sections in {name} v{version}",
                      data={"document_id": str(doc_id), "version": version, "tree": tree})


def _outline_text(res: ToolResult) -> str | None:
    if res.error:
        return None
    lines = [res.render(limit=0)]
    lines += [f"{'  ' * t['depth']}[{t['node_id']}] {t['title']}: {t['summary'] or ''}" for t in res.data["tree"]]
    return "\n".join(lines)


GET_DOCUMENT_STRUCTURE = ToolSpec(
    name="get_document_structure", args=StructureArgs, mcp=True, text=_outline_text,
    description='The outline of a document: its sections with titles and summaries (for "what does chapter 3 '
                'say").',
    run=lambda svc, args, scope: get_document_structure_impl(svc, scope, args))
