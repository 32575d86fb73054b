"""Images: the bytes of an image that a source cites (a figure, a scanned page, a table read from one)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, HTTPException, Response

from dropqa.api.deps import DbDep, ScopeDep
from dropqa.api.errors import ERROR_RESPONSES
from dropqa.store import nodes as node_store

router = APIRouter(prefix="/api", tags=["images"], responses=ERROR_RESPONSES)

# Only types a browser shows as an image; anything else is sent as a download, never rendered.
_SAFE = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff"}


@router.get("/images/{image_id}", response_class=Response,
            responses={200: {"content": {m: {"schema": {"type": "string", "format": "binary"}}
                                         for m in [*sorted(_SAFE), "application/octet-stream"]},
                             "description": "the image bytes"}})
def get_image(image_id: uuid.UUID, db: DbDep, scope: ScopeDep) -> Response:
    """An image by its id, or by the id of the node it belongs to (a source's ``node_id``), of a base the
    request may read."""
    row = node_store.get_image(db, scope, image_id)
    if row is None:
        raise HTTPException(404, f"no image {image_id}")
    mime = row["mime"] if row["mime"] in _SAFE else "application/octet-stream"
    return Response(content=bytes(row["data"]), media_type=mime,
                    headers={"Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff"})
