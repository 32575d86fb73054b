"""PDF parser (PyMuPDF): sections from the outline or typography, paragraphs, tables, OCR.

Every node carries its exact 1-based ``page``. Pages without a usable text layer are
rendered at 150 dpi and OCR'd; large pictures on text pages are OCR'd into ``image``
nodes. Running headers/footers and page numbers are dropped.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import numpy as np
import pymupdf

from dropqa.ingestion.document import ImageBlob, ParsedDocument, ParsedNode, paragraph, table_node
from dropqa.ingestion.ocr import OcrResult, join_lines, recognize, recognize_array, split_paragraphs
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.pdf_extract import (
    ImageData,
    PageData,
    TableData,
    extract_page,
)
from dropqa.ingestion.parsers.pdf_furniture import drop_running_lines
from dropqa.ingestion.parsers.pdf_layout import (
    Heading,
    Item,
    TextLine,
    appendix_pages,
    assign_font_headings,
    assign_toc_headings,
    build_tree,
    flag_appendix,
    pattern_level,
    plausible_heading,
)

OCR_DPI = 150
BIG_LINE = 1.2  # an OCR line this much taller than the body text is a title
MAX_RENDER_SIDE = 4000
WEB_IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "jpg": "image/jpeg", "gif": "image/gif"}


def _cut_short(data: bytes) -> bool:
    """A PDF whose end is missing: it starts as one, holds objects, and has no ``%%EOF`` near its end."""
    return data.startswith(b"%PDF-") and b" obj" in data[:65536] and b"%%EOF" not in data[-2048:]


def open_pdf(data: bytes, ctx: ParseContext) -> tuple[pymupdf.Document, list[str]]:
    """Open and validate; raise ParseError for encrypted, damaged, truncated or too long files."""
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # FileDataError, EmptyFileError, RuntimeError ...
        if _cut_short(data):
            raise ParseError("the PDF is truncated (its end is missing); copy or download the file again") from exc
        raise ParseError(f"the file is damaged or is not a PDF: {exc}") from exc
    warnings: list[str] = []
    try:
        if doc.needs_pass:
            raise ParseError("the PDF is password-protected; remove the password and add it again")
        if doc.page_count == 0:
            raise ParseError("the PDF has no readable pages (the file is damaged or truncated)")
        if doc.is_repaired:
            if _cut_short(data):
                raise ParseError("the PDF is truncated (its end is missing); copy or download the file again")
            warnings.append("the PDF was damaged and has been repaired; some content may be missing")
        if doc.page_count > ctx.max_pages:
            raise ParseError(f"refused: the PDF has {doc.page_count} pages; the limit is {ctx.max_pages} pages")
    except ParseError:
        doc.close()
        raise
    return doc, warnings


class PdfParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        doc, warnings = open_pdf(data, ctx)
        with doc:
            return _PdfRun(doc, ctx, warnings).parse()


class _PdfRun:
    """State of one parse: the open document, the context and the warnings collected."""

    def __init__(self, doc: pymupdf.Document, ctx: ParseContext, warnings: list[str]) -> None:
        self.doc, self.ctx, self.warnings = doc, ctx, warnings
        self.ocr_pages: list[int] = []
        self._ocr_cache: dict[int, OcrResult] = {}

    def parse(self) -> ParsedDocument:
        pages = [self._extract(i) for i in range(self.doc.page_count)]
        scanned = {p.number for p in pages if p.text_chars < self.ctx.ocr_min_text_chars}
        text_pages = [p for p in pages if p.number not in scanned]
        drop_running_lines(text_pages)
        toc = self.doc.get_toc(simple=True)
        missing: list[Heading] = []
        pattern_base: int | None = None
        if toc:
            missing = assign_toc_headings([p.lines for p in pages], toc)
        else:
            assign_font_headings([ln for p in text_pages for ln in p.lines])
            pattern_base = max((ln.heading_level or 0 for p in text_pages for ln in p.lines), default=0)
        items: list[Item] = []
        total = 0
        for page in pages:
            if page.number in scanned:
                page_items = self._scanned_items(page)
            else:
                page_items = self._text_items(page, [h for h in missing if h.page == page.number], pattern_base)
            items.extend(page_items)
            total += sum(len(i.content) for i in page_items if isinstance(i, ParsedNode))
            if total > self.ctx.max_chars:
                self.warnings.append(
                    f"text limit of {self.ctx.max_chars} characters reached on page "
                    f"{page.number}; later pages were skipped"
                )
                break
        _finish_ocr_headings(items)
        children = build_tree(items)
        flag_appendix(children, appendix_pages(self.doc.page_count))
        return ParsedDocument(
            title=PurePath(self.ctx.filename).stem,
            file_type="pdf",
            children=children,
            metadata=self._metadata(bool(toc)),
            warnings=self.warnings,
        )

    def _extract(self, index: int) -> PageData:
        try:
            page = self.doc.load_page(index)
            return extract_page(page, index + 1)
        except Exception as exc:
            raise ParseError(f"the PDF is damaged: page {index + 1} cannot be read ({exc})") from exc

    def _metadata(self, has_outline: bool) -> dict[str, Any]:
        meta = self.doc.metadata or {}
        out: dict[str, Any] = {"page_count": self.doc.page_count, "outline": has_outline}
        for key in ("title", "author", "subject", "creationDate"):
            if meta.get(key):
                out[f"pdf_{key}"] = meta[key]
        if self.ocr_pages:
            out["ocr_pages"] = self.ocr_pages
        return out

    # ------------------------------------------------------------ text pages

    def _text_items(self, page: PageData, missing: list[Heading], pattern_base: int | None) -> list[Item]:
        entries: list[tuple[float, object]] = [(h.order, h) for h in missing]
        entries += [(ln.order, ln) for ln in page.lines if not ln.continuation]
        entries += [(t.order - 0.5, t) for t in page.tables]
        entries += [(im.order, im) for im in page.images]
        items: list[Item] = []
        run: list[TextLine] = []
        for _, entry in sorted(entries, key=lambda e: e[0]):
            if isinstance(entry, TextLine) and entry.heading_level is None:
                if not entry.consumed:
                    run.append(entry)
                continue
            items.extend(self._paragraphs(run, page, pattern_base))
            run = []
            if isinstance(entry, TextLine):
                items.append(Heading(entry.heading_title or entry.text, entry.heading_level or 1, page.number))
            elif isinstance(entry, TableData):
                items.append(_table(entry, page.number))
            elif isinstance(entry, ImageData) and not _is_text_background(entry, self.ctx):
                items.append(self._image(entry, page.number))
            elif isinstance(entry, Heading):
                items.append(entry)
        items.extend(self._paragraphs(run, page, pattern_base))
        return items

    def _paragraphs(self, run: list[TextLine], page: PageData, pattern_base: int | None) -> list[Item]:
        items: list[Item] = []
        for group in split_paragraphs(run, context=page.lines):
            text = join_lines([ln.text for ln in group])
            level = pattern_level(text) if pattern_base is not None and len(group) == 1 else None
            if level is not None and plausible_heading(text, 30):
                items.append(Heading(text, pattern_base + level, page.number))  # type: ignore[operator]
            else:
                items.append(paragraph(text, page=page.number, page_estimated=False, segment_type="text"))
        return items

    def _image(self, image: ImageData, page_no: int) -> ParsedNode:
        """A large picture: its bytes, and its OCR text unless the text layer already covers it."""
        page = self.doc.load_page(page_no - 1)
        blob = self._image_blob(image.xref) or _render_blob(page, image.bbox)
        result = OcrResult()
        if self.ctx.ocr_enabled and image.text_chars < self.ctx.ocr_min_text_chars:
            cached = self._ocr_cache.get(image.xref) if image.xref > 0 else None
            result = cached or self._ocr_image(blob, page, image)
        meta: dict[str, Any] = {"page": page_no, "page_estimated": False, "segment_type": "figure"}
        if result.paragraphs:  # same convention as the docx/pptx image nodes
            meta.update(segment_type="ocr", ocr_confidence=round(result.confidence, 4))
        return ParsedNode("image", title=image.caption, content=result.text, metadata=meta, image=blob)

    def _ocr_image(self, blob: ImageBlob, page: pymupdf.Page, image: ImageData) -> OcrResult:
        try:
            result = recognize(blob.data, max_pixels=self.ctx.max_image_pixels)
        except ParseError:  # a format PIL cannot read (JBIG2, JPX …): OCR the rendered region
            result = self._ocr_render(page, image.bbox)
        if image.xref > 0:
            self._ocr_cache[image.xref] = result  # logos/banners repeat on every page
        return result

    def _image_blob(self, xref: int) -> ImageBlob | None:
        if xref <= 0:
            return None
        try:
            width = int(self.doc.xref_get_key(xref, "Width")[1])
            height = int(self.doc.xref_get_key(xref, "Height")[1])
            if width * height > self.ctx.max_image_pixels:
                return None  # never decode a pixel bomb; the rendered region is used instead
            info = self.doc.extract_image(xref)
            ext = str(info.get("ext", "")).lower()
            if ext in WEB_IMAGE_TYPES:
                return ImageBlob(info["image"], WEB_IMAGE_TYPES[ext], info.get("width"), info.get("height"))
            pix = pymupdf.Pixmap(self.doc, xref)
            if pix.alpha or (pix.colorspace and pix.colorspace.n > 3):
                pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
            return ImageBlob(pix.tobytes("png"), "image/png", pix.width, pix.height)
        except Exception:
            return None

    # ------------------------------------------------------------ scanned pages

    def _scanned_items(self, page: PageData) -> list[Item]:
        result = OcrResult()
        if self.ctx.ocr_enabled:
            result = self._ocr_render(self.doc.load_page(page.number - 1), None)
            if result.paragraphs:
                self.ocr_pages.append(page.number)
                return _ocr_items(result, page.number)
        text_items = self._text_items(page, [], None) if page.lines else []
        if not text_items or page.image_count:
            reason = "OCR found nothing" if self.ctx.ocr_enabled else "OCR is disabled"
            self.warnings.append(f"page {page.number} has no text layer and {reason}")
        return text_items

    def _ocr_render(self, page: pymupdf.Page, clip: tuple[float, float, float, float] | None) -> OcrResult:
        rect = pymupdf.Rect(clip) if clip else page.rect
        dpi = min(OCR_DPI, MAX_RENDER_SIDE * 72 / max(1.0, rect.width, rect.height))
        try:
            pix = page.get_pixmap(dpi=max(1, int(dpi)), clip=rect, alpha=False)
        except Exception as exc:
            self.warnings.append(f"page {page.number + 1} could not be rendered for OCR: {exc}")
            return OcrResult()
        arr = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)
        if pix.n not in (1, 3):
            arr = np.ascontiguousarray(arr[:, :, :3])
        return recognize_array(arr)


def _is_text_background(image: ImageData, ctx: ParseContext) -> bool:
    """A page-sized picture under a real text layer (a searchable scan, a letterhead): not a figure."""
    return image.share > 0.8 and image.text_chars >= ctx.ocr_min_text_chars


def _table(table: TableData, page_no: int) -> ParsedNode:
    return table_node(table.header, table.rows, title=table.caption, page=page_no, page_estimated=False)


def _render_blob(page: pymupdf.Page, bbox: tuple[float, float, float, float]) -> ImageBlob:
    pix = page.get_pixmap(dpi=OCR_DPI, clip=pymupdf.Rect(bbox), alpha=False)
    return ImageBlob(pix.tobytes("png"), "image/png", pix.width, pix.height)


def _body_height(result: OcrResult) -> float:
    """Line height of the body text: the median paragraph line height weighted by text length."""
    paras = sorted(result.paragraphs, key=lambda p: p.line_height)
    half, seen = sum(len(p.text) for p in paras) / 2, 0
    for para in paras:
        seen += len(para.text)
        if seen >= half:
            return para.line_height
    return 0.0


def _ocr_items(result: OcrResult, page_no: int) -> list[Item]:
    """OCR paragraphs as nodes; single big or numbered lines become headings (levels finished later)."""
    body = _body_height(result)
    items: list[Item] = []
    for para in result.paragraphs:
        level = pattern_level(para.text)
        big = level is None and para.line_height >= BIG_LINE * body
        if para.line_count == 1 and plausible_heading(para.text, 40) and (level is not None or big):
            prev = items[-1] if items else None
            if big and isinstance(prev, Heading) and prev.metadata.get("ocr_heading") == "title":
                prev.title = f"{prev.title} {para.text}"  # a title printed on two big lines
                continue
            kind = "title" if big else "numbered"
            items.append(Heading(para.text, level or 1, page_no, {"ocr_heading": kind}))
            continue
        meta = {"segment_type": "ocr", "ocr_confidence": round(para.confidence, 4)}
        items.append(paragraph(para.text, page=page_no, page_estimated=False, **meta))
    return items


def _finish_ocr_headings(items: list[Item]) -> None:
    """Big unnumbered OCR titles are level 1; numbered OCR headings nest under a title printed first."""
    headings = [i for i in items if isinstance(i, Heading) and "ocr_heading" in i.metadata]
    kinds = [str(h.metadata.pop("ocr_heading")) for h in headings]
    title_first = bool(kinds) and kinds[0] == "title"
    for heading, kind in zip(headings, kinds, strict=True):
        if kind == "title":
            heading.level = 1
        elif title_first:
            heading.level += 1
