"""How a tool argument names a node or a document: an id, or (for documents) part of a file name."""

from __future__ import annotations

import uuid
from typing import Any

from dropqa.services import Services
from dropqa.store import nodes as node_store
from dropqa.store.documents import get_document
from dropqa.store.scope import Scope
from dropqa.text.segment import query_terms


def parse_id(value: object) -> uuid.UUID | None:
    """``value`` as an id, or None when it is not one (the model sometimes passes a name)."""
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


def parse_ids(values: list[str]) -> list[uuid.UUID]:
    """The ids among ``values``, in order; the others are left out."""
    return [i for i in map(parse_id, values) if i is not None]


def find_document(svc: Services, scope: Scope, document: str) -> dict[str, Any] | None:
    """The document of the scope's bases ``document`` names: its id, else the best match of (part of) its
    file name."""
    doc_id = parse_id(document)
    if doc_id is not None:
        return get_document(svc.db, scope, doc_id)
    matches = [m for m in node_store.find_documents(svc.db, scope, [document, *query_terms(document)])
               if m["hits"] > 0]
    return get_document(svc.db, scope, matches[0]["document_id"]) if matches else None
