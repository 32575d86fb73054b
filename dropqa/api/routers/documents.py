"""Documents and nodes (read side; upload and jobs come with the ingestion service)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.concurrency import run_in_threadpool

from dropqa.api.deps import Authorized, DbDep
from dropqa.store import documents as doc_store
from dropqa.store import nodes as node_store

router = APIRouter(prefix="/api", tags=["documents"], dependencies=[Authorized])


def _doc_json(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(r["id"]), "filename": r["filename"], "source_key": r["source_key"],
        "file_type": r["file_type"], "file_size": r["file_size"], "current_version": r["current_version"],
        "version_count": r.get("version_count"), "node_count": r.get("node_count"),
        "created_at": r["created_at"].isoformat(), "updated_at": r["updated_at"].isoformat(),
        "deleted": r.get("deleted_at") is not None,
    }


@router.get("/documents")
async def list_documents(db: DbDep, q: str | None = None, limit: int = 100, offset: int = 0) -> dict[str, Any]:
    rows = await run_in_threadpool(doc_store.list_documents, db, limit=min(max(limit, 1), 1000),
                                   offset=max(offset, 0), query=q)
    return {"documents": [_doc_json(r) for r in rows], "limit": limit, "offset": offset}


@router.get("/documents/{document_id}")
async def document_detail(document_id: uuid.UUID, db: DbDep, version: int | None = None) -> dict[str, Any]:
    doc = await run_in_threadpool(doc_store.get_document, db, document_id)
    if doc is None:
        raise HTTPException(404, f"no document {document_id}")
    v = version or doc["current_version"]
    tree = await run_in_threadpool(node_store.outline, db, document_id, v)
    versions = await run_in_threadpool(doc_store.list_versions, db, document_id)
    topics = await run_in_threadpool(doc_store.document_topics, db, document_id, v)
    return {
        **_doc_json(doc), "version": v,
        "structure": [{"node_id": str(n["node_id"]), "parent_id": str(n["parent_id"]) if n["parent_id"] else None,
                       "type": n["node_type"], "depth": n["depth"], "title": n["title"], "summary": n["summary"],
                       "page": (n["metadata"] or {}).get("page")} for n in tree],
        "versions": [{"version": x["version"], "file_hash": x["file_hash"], "node_count": x["node_count"],
                      "created_at": x["created_at"].isoformat()} for x in versions],
        "topics": [{"id": str(t["id"]), "name": t["name"], "confidence": t["confidence"]} for t in topics],
    }


@router.get("/nodes/{node_id}")
async def node_detail(node_id: uuid.UUID, db: DbDep) -> dict[str, Any]:
    """Everything a client needs to check what a citation points at."""
    node = await run_in_threadpool(node_store.get_node, db, node_id)
    if node is None:
        raise HTTPException(404, f"no node {node_id}")
    meta = node["metadata"] or {}
    crumb = node["breadcrumb"] or ""
    return {
        "node_id": str(node["node_id"]), "document_id": str(node["document_id"]),
        "document_name": node["document_name"], "version": node["version"],
        "current_version": node["current_version"], "node_type": node["node_type"], "title": node["title"],
        "content": node["content"], "summary": node["summary"], "breadcrumb": crumb,
        "section": " > ".join(crumb.split(" > ")[1:]), "page": meta.get("page"),
        "page_estimated": bool(meta.get("page_estimated", False)), "metadata": meta,
        "parent_id": str(node["parent_id"]) if node["parent_id"] else None,
    }
