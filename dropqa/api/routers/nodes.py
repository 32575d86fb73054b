"""Nodes: what a citation points at (full text, breadcrumb, page, image)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel

from dropqa.api.deps import DbDep, ScopeDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.store import nodes as node_store

router = APIRouter(prefix="/api", tags=["documents"], responses=ERROR_RESPONSES)


class NodeDetail(BaseModel):
    node_id: str
    document_id: str
    document_name: str
    version: int
    current_version: int
    node_type: str
    title: str | None
    content: str
    summary: str | None
    breadcrumb: str
    section: str
    page: int | None
    page_estimated: bool
    metadata: dict[str, Any]
    parent_id: str | None
    image_id: str | None = None


@router.get("/nodes/{node_id}", response_model=NodeDetail)
def node_detail(node_id: uuid.UUID, db: DbDep, scope: ScopeDep) -> NodeDetail:
    """Everything a client needs to check what a citation points at; ``image_id`` (for
    ``GET /api/images/{id}``) when the node is an image or a table read from one. A node of a base the
    request may not read is 404."""
    node = node_store.get_node(db, scope, node_id)
    if node is None:
        raise HTTPException(404, f"no node {node_id}")
    image = node_store.image_for_node(db, scope, node_id)
    meta = node["metadata"] or {}
    crumb = node["breadcrumb"] or ""
    return NodeDetail(
        node_id=str(node["node_id"]), document_id=str(node["document_id"]), document_name=node["document_name"],
        version=node["version"], current_version=node["current_version"], node_type=node["node_type"],
        title=node["title"], content=node["content"], summary=node["summary"], breadcrumb=crumb,
        section=" > ".join(crumb.split(" > ")[1:]), page=meta.get("page"),
        page_estimated=bool(meta.get("page_estimated", False)), metadata=meta,
        parent_id=str(node["parent_id"]) if node["parent_id"] else None,
        image_id=str(image["id"]) if image else None,
    )
