"""Detect a file's real type from its bytes (the extension is only a hint)."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath

from dropqa.ingestion.encoding import guess_utf16

IMAGE_TYPES = {"png", "jpg", "jpeg", "tif", "tiff", "bmp", "gif", "webp"}
TEXT_EXTENSIONS = {"md": "md", "markdown": "md", "txt": "txt", "text": "txt", "log": "txt", "csv": "csv"}
OOXML_PARTS = {"word/": "docx", "ppt/": "pptx", "xl/": "xlsx"}


def _magic(data: bytes) -> str | None:
    head = data[:16]
    if head.startswith(b"%PDF") or data[:1024].find(b"%PDF-") != -1:
        return "pdf"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image"
    if head.startswith(b"\xff\xd8\xff"):
        return "image"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "image"
    if head.startswith(b"BM") and len(data) > 26:
        return "image"
    if head.startswith((b"GIF87a", b"GIF89a")) or (head.startswith(b"RIFF") and data[8:12] == b"WEBP"):
        return "image"
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "ole"  # legacy .doc/.xls/.ppt, or an encrypted OOXML file
    if head.startswith(b"PK\x03\x04"):
        return "zip"
    return None


def _ooxml_kind(data: bytes, ext: str) -> str | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        # Truncated or damaged: the central directory is gone, but the local headers at the start
        # still name the parts (else trust the extension) — enough to send the file to its parser,
        # which then says "damaged" instead of "not a Word file".
        head = data[: 1 << 20]
        names = [prefix for prefix in OOXML_PARTS if prefix.encode() in head]
        if not names and ext in OOXML_PARTS.values():
            return ext
    for prefix, kind in OOXML_PARTS.items():
        if any(n.startswith(prefix) for n in names):
            return kind
    return None


def looks_like_text(data: bytes) -> bool:
    sample = data[:8192]
    if not sample:
        return True
    if sample.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return True
    if guess_utf16(sample):  # BOM-less UTF-16: ASCII-heavy (NULs on one side) or Chinese (few NULs)
        return True
    if b"\x00" in sample:
        return False
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control < len(sample) * 0.02


def detect_type(data: bytes, filename: str) -> str:
    """Return a canonical type: md, txt, csv, docx, pptx, xlsx, pdf, image, ole, zip or unknown."""
    ext = PurePath(filename).suffix.lower().lstrip(".")
    magic = _magic(data)
    if magic == "zip":
        return _ooxml_kind(data, ext) or "zip"
    if magic:
        return magic
    if looks_like_text(data):
        return TEXT_EXTENSIONS.get(ext, "txt")
    return "unknown"
