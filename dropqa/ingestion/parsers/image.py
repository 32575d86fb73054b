"""Image files (.png .jpg .jpeg .tiff .bmp …): the picture plus its OCR'd paragraphs.

A multi-page TIFF becomes one section per frame (``第N页`` / ``Page N``). Dimensions
are checked from the header before any pixel is decoded.
"""

from __future__ import annotations

import io
from pathlib import PurePath

from PIL import Image, ImageOps

from dropqa.ingestion.document import ImageBlob, ParsedDocument, ParsedNode, paragraph, section
from dropqa.ingestion.ocr import OcrResult, check_pixels, is_cjk, open_image, recognize_image, to_rgb
from dropqa.ingestion.parsers.base import ParseContext, ParseError

WEB_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


class ImageParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        img = open_image(data, ctx.max_image_pixels)
        fmt = (img.format or "").upper()
        frames = getattr(img, "n_frames", 1) if fmt == "TIFF" else 1
        if frames > ctx.max_pages:
            raise ParseError(f"refused: the image has {frames} pages; the limit is {ctx.max_pages} pages")
        doc = ParsedDocument(title=PurePath(ctx.filename).stem, file_type="image")
        doc.metadata = {"format": fmt, "width": img.width, "height": img.height, "frames": frames}
        if frames == 1:
            original = data if fmt in WEB_FORMATS else None
            doc.children = self._frame(_oriented(img), original, fmt, 1, ctx, doc.warnings, "the image")
            return doc
        texts = []
        for index in range(frames):
            frame = _seek(img, index)
            check_pixels(frame.size, ctx.max_image_pixels)
            nodes = self._frame(frame, None, fmt, index + 1, ctx, doc.warnings, f"page {index + 1} of the image")
            texts.append(nodes[0].content)
            doc.children.append(section("", nodes, page=index + 1, page_estimated=False, auto_title=True))
        chinese = any(is_cjk(ch) for text in texts for ch in text) or not any(texts)
        for number, node in enumerate(doc.children, start=1):
            node.title = f"第{number}页" if chinese else f"Page {number}"
        return doc

    def _frame(
        self,
        img: Image.Image,
        original: bytes | None,
        fmt: str,
        page: int,
        ctx: ParseContext,
        warnings: list[str],
        where: str,
    ) -> list[ParsedNode]:
        """The image node (picture + full OCR text) followed by one paragraph per OCR paragraph."""
        rgb = to_rgb(img)
        if original is not None:
            blob = ImageBlob(original, WEB_FORMATS[fmt], img.width, img.height)
        else:
            buf = io.BytesIO()
            rgb.save(buf, format="PNG", optimize=False)
            blob = ImageBlob(buf.getvalue(), "image/png", rgb.width, rgb.height)
        result = OcrResult()
        if ctx.ocr_enabled:
            result = recognize_image(rgb)
        if not ctx.ocr_enabled:
            warnings.append(f"OCR is disabled: the text in {where} was not extracted")
        elif not result.paragraphs:
            warnings.append(f"OCR found no text in {where}")
        meta: dict[str, object] = {"page": page, "page_estimated": False, "segment_type": "figure"}
        if result.paragraphs:  # same convention as the docx/pptx image nodes
            meta.update(segment_type="ocr", ocr_confidence=round(result.confidence, 4))
        nodes = [ParsedNode("image", content=result.text, metadata=meta, image=blob)]
        for para in result.paragraphs:
            conf = round(para.confidence, 4)
            nodes.append(paragraph(para.text, page=page, page_estimated=False, segment_type="ocr", ocr_confidence=conf))
        return nodes


def _oriented(img: Image.Image) -> Image.Image:
    try:
        return ImageOps.exif_transpose(img) or img
    except (OSError, ValueError, SyntaxError) as exc:
        raise ParseError(f"the image is damaged: {exc}") from exc


def _seek(img: Image.Image, index: int) -> Image.Image:
    try:
        img.seek(index)
    except (EOFError, OSError, ValueError) as exc:
        raise ParseError(f"the TIFF file is damaged: page {index + 1} cannot be read ({exc})") from exc
    return img
