"""Topics: list (with document counts), detail with documents, a topic's documents, merge.

Topics are per knowledge base; every route reads in the request's scope (a topic of another base is
404), and merging needs the editor role."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, Field

from dropqa.api.deps import DbDep, EditorDep, ScopeDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.api.routers.documents import DocumentInfo, document_info
from dropqa.store import topics as topic_store
from dropqa.store.scope import Scope

router = APIRouter(prefix="/api/topics", tags=["topics"], responses=ERROR_RESPONSES)

Limit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=1_000_000_000)]


class TopicInfo(BaseModel):
    id: str
    name: str
    description: str | None = None
    descriptions: dict[str, str] = Field(default_factory=dict, description="the one-line description per page "
                                         "language (`zh`, `en`)")
    document_count: int
    confidence: float | None = Field(None, description="mean confidence over its documents")


class TopicPage(BaseModel):
    topics: list[TopicInfo]
    total: int
    limit: int
    offset: int


class TopicDocument(DocumentInfo):
    confidence: float


class TopicDocuments(BaseModel):
    documents: list[TopicDocument]
    limit: int
    offset: int


class TopicDetail(TopicInfo):
    merged_names: list[str] = Field(default_factory=list, description="topics merged into this one")
    documents: list[TopicDocument]


class MergeRequest(BaseModel):
    source_ids: list[uuid.UUID] = Field(min_length=1, max_length=100, description="topics to merge away")
    target_id: uuid.UUID = Field(description="the topic that remains")
    name: str | None = Field(None, min_length=1, max_length=100, description="optional new name for the target")


class MergeResponse(BaseModel):
    topic: TopicDetail
    merged: list[str]
    links_moved: int


def _doc(r: dict[str, Any]) -> TopicDocument:
    return TopicDocument(**document_info(r).model_dump(), confidence=r["confidence"])


def _detail(db: Any, scope: Scope, topic_id: uuid.UUID, limit: int = 100) -> TopicDetail:
    topic = topic_store.get_topic(db, scope, topic_id)
    if topic is None:
        raise HTTPException(404, f"no topic {topic_id}")
    docs = topic_store.topic_documents(db, scope, topic["id"], limit=limit)
    return TopicDetail(id=str(topic["id"]), name=topic["name"], description=topic["description"],
                       descriptions=topic["descriptions"] or {},
                       document_count=topic["document_count"], merged_names=list(topic["merged_names"] or []),
                       confidence=(sum(d["confidence"] for d in docs) / len(docs)) if docs else None,
                       documents=[_doc(d) for d in docs])


@router.get("", response_model=TopicPage)
def list_topics(db: DbDep, scope: ScopeDep, limit: Limit = 100, offset: Offset = 0,
                q: Annotated[str | None, Query(max_length=100, description="part of the name")] = None,
                ) -> TopicPage:
    """Topics carried by at least one live document, most documents first."""
    rows = topic_store.list_topics(db, scope, query=q or None, limit=limit, offset=offset)
    total = topic_store.count_topics(db, scope, query=q or None)
    return TopicPage(topics=[TopicInfo(id=str(r["id"]), name=r["name"], description=r["description"],
                                       descriptions=r["descriptions"] or {},
                                       document_count=r["document_count"], confidence=r["confidence"]) for r in rows],
                     total=total, limit=limit, offset=offset)


@router.post("/merge", response_model=MergeResponse)
def merge_topics(req: MergeRequest, _: EditorDep, db: DbDep, scope: ScopeDep) -> MergeResponse:
    """Merge similar topics of one base into one (editor). Their documents move to the target; the merge also
    applies to documents indexed later (their extracted topic names lead to the target)."""
    try:
        result = topic_store.merge_topics(db, scope, req.source_ids, req.target_id, req.name)
    except topic_store.MergeError as exc:
        status = 404 if isinstance(exc, topic_store.UnknownTopic) else 409
        raise HTTPException(status, str(exc)) from exc
    return MergeResponse(topic=_detail(db, scope, req.target_id), merged=[str(s) for s in result["merged"]],
                         links_moved=result["links_moved"])


@router.get("/{topic_id}", response_model=TopicDetail)
def topic_detail(topic_id: uuid.UUID, db: DbDep, scope: ScopeDep) -> TopicDetail:
    """A topic and its documents (a merged topic answers with the topic it was merged into)."""
    return _detail(db, scope, topic_id)


@router.get("/{topic_id}/documents", response_model=TopicDocuments)
def topic_documents(topic_id: uuid.UUID, db: DbDep, scope: ScopeDep, limit: Limit = 100,
                    offset: Offset = 0) -> TopicDocuments:
    topic = topic_store.get_topic(db, scope, topic_id)
    if topic is None:
        raise HTTPException(404, f"no topic {topic_id}")
    docs = topic_store.topic_documents(db, scope, topic["id"], limit=limit, offset=offset)
    return TopicDocuments(documents=[_doc(d) for d in docs], limit=limit, offset=offset)
