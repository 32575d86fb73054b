"""Detect a file's real type from its bytes (the extension is only a hint)."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath

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


def _ooxml_kind(data: bytes) -> str | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = zf.namelist()
    except zipfile.BadZipFile:
        return None
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
    if b"\x00" in sample:
        # UTF-16 without BOM has many NULs in a regular pattern; real binaries too.
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        return max(even, odd) > len(sample) * 0.35 and min(even, odd) < len(sample) * 0.05
    control = sum(1 for b in sample if b < 9 or 13 < b < 32)
    return control < len(sample) * 0.02


def detect_type(data: bytes, filename: str) -> str:
    """Return a canonical type: md, txt, csv, docx, pptx, xlsx, pdf, image, ole, zip or unknown."""
    ext = PurePath(filename).suffix.lower().lstrip(".")
    magic = _magic(data)
    if magic == "zip":
        return _ooxml_kind(data) or "zip"
    if magic:
        return magic
    if looks_like_text(data):
        return TEXT_EXTENSIONS.get(ext, "txt")
    return "unknown"
