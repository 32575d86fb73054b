"""Helpers shared by the Word and PowerPoint parsers: container checks, images + OCR, language.

Both formats are ZIP (OOXML) containers that embed pictures, so the refusal
messages, the image node shape and the OCR call live here once.
"""

from __future__ import annotations

import hashlib
import io
import re
from typing import Any

from dropqa.ingestion.document import ImageBlob, ParsedNode
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.safety import check_zip_container

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# Formats Pillow decodes and the OCR engine can read; EMF/WMF/SVG are kept but not OCR'd.
OCR_MIMES = frozenset({"image/png", "image/jpeg", "image/gif", "image/bmp", "image/tiff", "image/webp"})
MIN_OCR_SIDE = 24  # icons and bullets smaller than this never hold readable text

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def guard_container(data: bytes, ctx: ParseContext, *, legacy_ext: str, label: str) -> None:
    """Run the zip-bomb guard, turning "not a zip" into a message that names the real cause.

    Encrypted Office files and legacy binary files are OLE compound files, not
    ZIPs; telling the user "damaged" would send them looking for the wrong fix.
    """
    try:
        check_zip_container(data, ctx)
    except ParseError as exc:
        if data.startswith(OLE_MAGIC):
            if "EncryptionInfo".encode("utf-16-le") in data:
                raise ParseError(
                    f"the {label} file is password-protected; remove the password and add it again"
                ) from exc
            raise ParseError(
                f"this is a legacy .{legacy_ext} file, not a modern {label} file; "
                f"save it in the current format and add it again"
            ) from exc
        raise


def is_mostly_chinese(text: str) -> bool:
    """True when CJK characters carry most of the text (one CJK char ~ one word ~ three letters)."""
    cjk = len(_CJK.findall(text))
    return cjk > 0 and cjk * 3 >= len(_LATIN.findall(text))


def image_size(data: bytes) -> tuple[int | None, int | None]:
    """Read the pixel size from the header only (no decoding, so a huge image costs nothing)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            return img.size
    except Exception:  # EMF/WMF/SVG or a broken image: keep the bytes, size unknown
        return None, None


class ImageExtractor:
    """Builds image nodes, running OCR once per distinct image (logos repeat in documents)."""

    def __init__(self, ctx: ParseContext, warnings: list[str]) -> None:
        self.ctx = ctx
        self.warnings = warnings
        self._ocr_cache: dict[str, tuple[str, float | None]] = {}
        self._ocr_broken = False

    def node(self, data: bytes, mime: str, **metadata: Any) -> ParsedNode:
        width, height = image_size(data)
        text, confidence = self._recognize(data, mime, width, height)
        meta: dict[str, Any] = {**metadata, "segment_type": "ocr" if text else "figure"}
        if confidence is not None:
            meta["ocr_confidence"] = confidence
        blob = ImageBlob(data=data, mime=mime, width=width, height=height)
        return ParsedNode("image", content=text, image=blob, metadata=meta)

    def _recognize(
        self, data: bytes, mime: str, width: int | None, height: int | None
    ) -> tuple[str, float | None]:
        if not self.ctx.ocr_enabled or self._ocr_broken or mime not in OCR_MIMES:
            return "", None
        if width is None or height is None or min(width, height) < MIN_OCR_SIDE:
            return "", None
        if width * height > self.ctx.max_image_pixels:
            self.warnings.append(f"image of {width}x{height} pixels is too large to OCR; kept without text")
            return "", None
        key = hashlib.sha1(data).hexdigest()
        if key not in self._ocr_cache:
            self._ocr_cache[key] = self._run_ocr(data)
        return self._ocr_cache[key]

    def _run_ocr(self, data: bytes) -> tuple[str, float | None]:
        try:
            from dropqa.ingestion.ocr import recognize
        except ImportError:
            # OCR is optional: without it images are still kept, just not searchable.
            self._ocr_broken = True
            return "", None
        try:
            result = recognize(data, max_pixels=self.ctx.max_image_pixels)
        except Exception as exc:  # one unreadable image must not fail the whole document
            self.warnings.append(f"OCR failed on an image: {exc}")
            return "", None
        text = (result.text or "").strip()
        return text, float(result.confidence) if text else None
