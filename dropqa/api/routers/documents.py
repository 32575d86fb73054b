"""Documents: upload, list, detail (structure, versions, topics), versions, delete, re-index.

Every route reads in the request's scope (``kb``, the caller's bases): a document of another base is 404.
Upload, delete and re-index need the editor role."""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, Query, UploadFile
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from dropqa.api import access
from dropqa.api.deps import DbDep, EditorDep, ScopeDep, ServicesDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.api.load import Overloaded
from dropqa.api.uploads import UploadItem, accept
from dropqa.ingestion.topic_clusters import recompute_topics
from dropqa.store import blobs, jobs, pending
from dropqa.store import documents as doc_store
from dropqa.store import nodes as node_store
from dropqa.store.scope import Scope

router = APIRouter(prefix="/api", tags=["documents"], responses=ERROR_RESPONSES)
# Separate so the app can give it the upload body limit instead of the small default one.
upload_router = APIRouter(prefix="/api", tags=["documents"], responses=ERROR_RESPONSES)

UPLOAD_PATH = "/api/documents/upload"
Limit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=1_000_000_000)]


class IndexStatus(BaseModel):
    """How far the current version is indexed: full-text search answers from it as soon as it is
    written; semantic search uses the embeddings filled in so far."""

    fulltext: str = Field(description="'ready': the version is written and answers by full-text")
    semantic_percent: int = Field(description="share of its passages embedded (100: fully embedded)")
    embedded: int
    pending: int = Field(description="passages still to embed")
    label: str = Field(description="e.g. 'full-text ready · semantic 42 %'")
    label_zh: str


class DocumentInfo(BaseModel):
    id: str
    kb: str | None = Field(None, description="the knowledge base it belongs to")
    filename: str
    source_key: str
    file_type: str
    file_size: int
    current_version: int
    version_count: int | None = None
    node_count: int | None = None
    created_at: datetime
    updated_at: datetime
    deleted: bool
    index_status: IndexStatus | None = None


class DocumentPage(BaseModel):
    documents: list[DocumentInfo]
    total: int
    limit: int
    offset: int


class StructureNode(BaseModel):
    node_id: str
    parent_id: str | None
    type: str
    depth: int
    title: str | None
    summary: str | None
    page: int | None = None


class VersionInfo(BaseModel):
    version: int
    file_hash: str
    file_size: int
    node_count: int
    created_at: datetime


class TopicRef(BaseModel):
    id: str
    name: str
    confidence: float


class DocumentDetail(DocumentInfo):
    version: int = Field(description="the version the structure and topics belong to")
    structure: list[StructureNode]
    versions: list[VersionInfo]
    topics: list[TopicRef]


class UploadResponse(BaseModel):
    success: bool = Field(description="true when no file was rejected")
    documents: list[UploadItem]


class DeleteResponse(BaseModel):
    id: str
    deleted: bool


class ReindexResponse(BaseModel):
    document_id: str
    job_id: str
    job_state: str


def document_info(r: dict[str, Any]) -> DocumentInfo:
    return DocumentInfo(
        id=str(r["id"]), kb=r.get("kb"), filename=r["filename"], source_key=r["source_key"], file_type=r["file_type"],
        file_size=r["file_size"], current_version=r["current_version"], version_count=r.get("version_count"),
        node_count=r.get("node_count"), created_at=r["created_at"], updated_at=r["updated_at"],
        deleted=r.get("deleted_at") is not None,
        index_status=IndexStatus(**pending.index_status(int(r["embed_done"]), int(r["embed_pending"])))
        if r.get("embed_done") is not None else None,
    )


def _document(db: Any, scope: Scope, document_id: uuid.UUID) -> dict[str, Any]:
    """The document of the scope's bases, or 404 (for every other base's ids too)."""
    doc = doc_store.get_document(db, scope, document_id)
    if doc is None or doc["current_version"] < 1:
        raise HTTPException(404, f"no document {document_id}")
    return doc


@upload_router.post("/documents/upload", response_model=UploadResponse)
async def upload_documents(
    svc: ServicesDep,
    caller: EditorDep,
    files: Annotated[list[UploadFile], File(description="one or more files (Markdown, text, CSV, Word, "
                                                        "PowerPoint, Excel, PDF, images)")],
    kb: Annotated[str | None, Form(max_length=100, description="the knowledge base the files go to (default: "
                                                               "`default`, or the key's only base)")] = None,
    replace: Annotated[uuid.UUID | None, Form(description="a document id: the (single) file becomes that "
                                                          "document's next version. Without it an upload is "
                                                          "its own document and never a version of a "
                                                          "folder-indexed one")] = None,
) -> UploadResponse:
    """Store the files and queue one ingestion job each (editor); returns at once. Follow the jobs with
    ``GET /api/jobs/{id}`` or ``GET /api/jobs/stream?ids=…``. More unfinished jobs than
    ``api.max_queued_jobs`` would make: 429 with Retry-After, nothing stored."""
    limit = svc.settings.api.max_upload_files
    if len(files) > limit:
        raise HTTPException(413, f"{len(files)} files in one upload; the limit is {limit}")
    target = None
    if replace is not None:
        if len(files) != 1:
            raise HTTPException(400, "replace takes exactly one file")
        scope = await run_in_threadpool(access.scope_for, svc.db, caller, [kb] if kb else None)
        target = await run_in_threadpool(_document, svc.db, scope, replace)
        kb_id = target["kb_id"]
    else:
        kb_id = await run_in_threadpool(access.write_base, svc.db, caller, kb)
    depth_limit = svc.settings.api.max_queued_jobs
    depth = await run_in_threadpool(jobs.queue_depth, svc.db)
    if depth + len(files) > depth_limit:
        raise Overloaded(30, f"the ingestion queue is full ({depth} unfinished jobs, at most {depth_limit}); "
                             "try again later")
    max_bytes = svc.settings.ingestion.max_file_bytes
    items = []
    for f in files:
        data = await f.read(max_bytes + 1)
        result = await run_in_threadpool(accept, svc, kb_id, f.filename, data, target)
        items.append(result)
        await f.close()
    return UploadResponse(success=all(i.status != "rejected" for i in items), documents=items)


@router.get("/documents", response_model=DocumentPage)
def list_documents(db: DbDep, scope: ScopeDep, limit: Limit = 100, offset: Offset = 0,
                   q: Annotated[str | None, Query(max_length=200, description="part of the file name")] = None,
                   type: Annotated[str | None, Query(max_length=20, description="md, docx, pdf, …")] = None,
                   topic: Annotated[uuid.UUID | None, Query(description="a topic id")] = None,
                   include_deleted: bool = False,
                   sort: Annotated[doc_store.DocumentOrder, Query(description="`name`: by file name, A to Z; "
                                                                  "`time`: most recently changed first")] = "name",
                   ) -> DocumentPage:
    kw: dict[str, Any] = {"query": q or None, "file_type": type or None, "topic_id": topic,
                          "include_deleted": include_deleted}
    rows = doc_store.list_documents(db, scope, limit=limit, offset=offset, order=sort, **kw)
    total = doc_store.count_documents(db, scope, **kw)
    return DocumentPage(documents=[document_info(r) for r in rows], total=total, limit=limit, offset=offset)


@router.get("/documents/{document_id}", response_model=DocumentDetail)
def document_detail(document_id: uuid.UUID, db: DbDep, scope: ScopeDep,
                    version: Annotated[int | None, Query(ge=1, le=1_000_000)] = None) -> DocumentDetail:
    doc = _document(db, scope, document_id)
    v = min(version or doc["current_version"], doc["current_version"])
    tree = node_store.outline(db, scope, document_id, v)
    versions = doc_store.list_versions(db, scope, document_id)
    topics = doc_store.document_topics(db, scope, document_id, v)
    done, waiting = doc_store.embedding_counts(db, scope, document_id, doc["current_version"])
    info = document_info({**doc, "version_count": len(versions), "node_count": None, "embed_done": done,
                          "embed_pending": waiting})
    return DocumentDetail(
        **info.model_dump(), version=v,
        structure=[StructureNode(node_id=str(n["node_id"]), parent_id=str(n["parent_id"]) if n["parent_id"] else None,
                                 type=n["node_type"], depth=n["depth"], title=n["title"], summary=n["summary"],
                                 page=(n["metadata"] or {}).get("page")) for n in tree],
        versions=[VersionInfo(**x) for x in versions],
        topics=[TopicRef(id=str(t["id"]), name=t["name"], confidence=t["confidence"]) for t in topics],
    )


@router.get("/documents/{document_id}/versions", response_model=list[VersionInfo])
def document_versions(document_id: uuid.UUID, db: DbDep, scope: ScopeDep) -> list[VersionInfo]:
    _document(db, scope, document_id)
    return [VersionInfo(**x) for x in doc_store.list_versions(db, scope, document_id)]


@router.delete("/documents/{document_id}", response_model=DeleteResponse)
def delete_document(document_id: uuid.UUID, _: EditorDep, db: DbDep, scope: ScopeDep,
                    svc: ServicesDep) -> DeleteResponse:
    """Remove the document from answers at once (editor). Its versions, nodes and the QA history stay.
    One transaction: hidden, its unused bytes freed and a delete job queued together, or none of it. Then its
    base's topics are recomputed without it before the answer (a topic of it alone is gone)."""
    with db.transaction():
        doc = _document(db, scope, document_id)
        kb = doc["kb_id"]
        doc_store.mark_deleted(db, kb, doc["source_key"])
        if jobs.unfinished_for_key(db, kb, doc["source_key"]):
            # a queued or running index job would bring it back: a delete job after it keeps it deleted
            jobs.enqueue(db, kb, doc["source_key"], doc["storage_path"] or "", "delete")
    recompute_topics(db, svc.settings, svc.embedder.name, kb)
    return DeleteResponse(id=str(document_id), deleted=True)


@router.post("/documents/{document_id}/reindex", response_model=ReindexResponse, status_code=202)
def reindex_document(document_id: uuid.UUID, _: EditorDep, db: DbDep, scope: ScopeDep) -> ReindexResponse:
    """Parse the stored bytes of the current version again with the current parsers and settings; writes a
    new version (editor). The bytes come from the database, so any worker on any machine can do it."""
    with db.transaction():  # the hash is forgotten only together with the job that re-reads the bytes
        doc = _document(db, scope, document_id)
        if doc["deleted_at"] is not None:
            raise HTTPException(409, "the document is deleted; upload it again to bring it back")
        sha = doc_store.version_file_hash(db, scope, document_id, doc["current_version"])
        path, blob = doc["source_key"], None
        if sha and blobs.exists(db, sha):
            blob = sha
        else:  # indexed before file bytes were stored in the database: the file it was read from, if still there
            path = doc["storage_path"]
            if not path or not Path(path).is_file():
                raise HTTPException(409, "the original file is no longer available; upload it again")
        doc_store.forget_hash(db, scope, document_id)
        job = jobs.enqueue(db, doc["kb_id"], doc["source_key"], path, blob=blob)
    return ReindexResponse(document_id=str(document_id), job_id=str(job["id"]), job_state=job["state"])
