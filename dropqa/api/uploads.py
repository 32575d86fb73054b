"""Uploaded files: safe names, type from the bytes, content-addressed storage, one ingestion job each.

The bytes are stored in the database (:mod:`dropqa.store.blobs`, keyed by SHA-256: identical bytes
are stored once) and the job names them, so the worker that indexes the file may run on any machine
and nothing is written to this server's disk. The job's path, ``uploads/<sha256[:16]>/<safe name>``,
only says what was uploaded.

Uploads live in their own namespace: the document key of an upload is ``upload:<safe name>``,
so uploading ``pricing.md`` again with new content makes a new version of the uploaded
``pricing.md`` — and never of a folder-indexed ``pricing.md`` (whose key is its path). Only a
request that names a document to ``replace`` (by id) makes a new version of that document.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
import uuid
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel, Field

from dropqa.ingestion.parsers import UnsupportedFormat, get_parser
from dropqa.ingestion.sniff import detect_type
from dropqa.services import Services
from dropqa.store import blobs, jobs
from dropqa.store import documents as doc_store

_FORBIDDEN = re.compile(r'[<>:"/\\|?*]')
_MAX_NAME_BYTES = 200


def safe_filename(name: str | None) -> str:
    """The last path component, NFC-normalised, without control or reserved characters.

    Chinese, emoji and inner spaces are kept; ``..``, absolute paths and Windows
    separators cannot escape the upload folder. Never empty.
    """
    raw = unicodedata.normalize("NFC", name or "")
    raw = raw.replace("\\", "/").split("/")[-1]
    # control characters become spaces; invisible format characters (bidi overrides …) go, except the
    # zero-width joiner that holds emoji sequences together
    cleaned = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp")
                      else "" if unicodedata.category(c) == "Cf" and c != "\u200d" else c for c in raw)
    cleaned = _FORBIDDEN.sub("_", cleaned)
    cleaned = re.sub(r"\s+", " ", cleaned).strip(" .")
    if not cleaned or set(cleaned) <= {"."}:
        cleaned = "upload"
    if len(cleaned.encode("utf-8")) > _MAX_NAME_BYTES:
        suffix = PurePosixPath(cleaned).suffix
        suffix = suffix if len(suffix.encode("utf-8")) <= 16 else ""
        stem = cleaned[: len(cleaned) - len(suffix)] if suffix else cleaned
        while len((stem + suffix).encode("utf-8")) > _MAX_NAME_BYTES:
            stem = stem[:-1]
        cleaned = stem.rstrip(" .") + suffix
    return cleaned


class UploadItem(BaseModel):
    """What happened to one uploaded file (also the API's response item)."""

    filename: str = Field(description="the sanitised name the file is stored and indexed under")
    original_filename: str
    status: str = Field(description="queued (an ingestion job will index it), unchanged (a document already has "
                                    "exactly these bytes) or rejected (see error)")
    size: int
    file_type: str | None = None
    job_id: str | None = None
    job_state: str | None = None
    document_id: str | None = None
    error: str | None = None
    error_code: str | None = Field(default=None, description="file_too_large, file_empty or unsupported_type: "
                                   "with error_params, what a client words in its own language")
    error_params: dict[str, Any] | None = None


def upload_key(name: str) -> str:
    """The document key of an uploaded file (its own namespace; no folder path starts so)."""
    return doc_store.UPLOAD_PREFIX + name


def accept(svc: Services, kb: uuid.UUID, original: str | None, data: bytes, replace: dict | None = None) -> UploadItem:
    """Check one uploaded file, store it and queue its ingestion job into base ``kb``. With ``replace`` (a
    document row of that base) the file becomes that document's next version; otherwise a version of the
    upload of the same name in the base, if any. "Unchanged" looks only inside the base."""
    name = safe_filename(original)
    result = UploadItem(filename=name, original_filename=original or "", status="rejected", size=len(data))
    limit = svc.settings.ingestion.max_file_bytes
    if len(data) > limit:
        result.error = f"the file is larger than {limit / 1e6:.0f} MB"
        result.error_code, result.error_params = "file_too_large", {"limit_mb": round(limit / 1e6)}
        return result
    if not data.strip():
        result.error, result.error_code = "the file is empty", "file_empty"
        return result
    file_type = detect_type(data, name)
    result.file_type = file_type
    try:
        get_parser(file_type)  # also tells when the parser of an optional format is not installed
    except UnsupportedFormat as exc:
        result.error, result.error_code, result.error_params = str(exc), "unsupported_type", {"file_type": file_type}
        return result
    digest = hashlib.sha256(data).hexdigest()
    if replace is not None:  # only the named document's own bytes make it "unchanged"
        same = replace if replace["file_hash"] == digest and replace["deleted_at"] is None else None
    else:
        same = doc_store.find_by_hash(svc.db, kb, digest)
    if same is not None:
        result.status, result.document_id = "unchanged", str(same["id"])
        return result
    blobs.put(svc.db, data, digest)
    key = replace["source_key"] if replace is not None else upload_key(name)
    job = jobs.enqueue(svc.db, kb, key, f"uploads/{digest[:16]}/{name}", blob=digest)
    existing = doc_store.find_by_key(svc.db, kb, key)
    result.status, result.job_id, result.job_state = "queued", str(job["id"]), job["state"]
    result.document_id = str(existing["id"]) if existing and existing["current_version"] > 0 else None
    return result
