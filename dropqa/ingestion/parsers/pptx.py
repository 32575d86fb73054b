"""PowerPoint (.pptx) parser: one section per slide, content in reading order, speaker notes.

Slides are pages, so page numbers here are exact (``page_estimated`` False).
Speaker notes often hold what the presenter says but the slide does not show,
so they are indexed too, marked ``notes`` and prefixed so an answer can say
where the fact came from.
"""

from __future__ import annotations

import io
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph, section
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.ooxml import ImageExtractor, guard_container, is_mostly_chinese
from dropqa.ingestion.parsers.pptx_shapes import (
    ShapeReader,
    clean,
    is_running_placeholder,
    is_title_shape,
    reading_order,
)
from dropqa.text.headings import looks_like_heading_text

if TYPE_CHECKING:
    from pptx.presentation import Presentation
    from pptx.slide import Slide

MAX_FALLBACK_TITLE = 40
NOTES_PREFIX_ZH = "演讲者备注："
NOTES_PREFIX_EN = "Speaker notes: "


class PptxParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        guard_container(data, ctx, legacy_ext="ppt", label="PowerPoint")
        prs = _open(data)
        doc = ParsedDocument(title=PurePath(ctx.filename).stem, file_type="pptx")
        images = ImageExtractor(ctx, doc.warnings)
        untitled: list[ParsedNode] = []
        chars = 0
        for number, slide in enumerate(prs.slides, start=1):
            if number > ctx.max_pages or chars > ctx.max_chars:
                doc.warnings.append(
                    f"presentation truncated after slide {number - 1}: over the limit of "
                    f"{ctx.max_pages} slides or {ctx.max_chars} characters"
                )
                break
            try:
                node = _slide_section(slide, number, images, doc.warnings)
            except Exception as exc:  # one broken slide (missing part, bad XML) should not lose the deck
                doc.warnings.append(f"slide {number} could not be read and was skipped: {exc}")
                continue
            if not node.title:
                untitled.append(node)
            chars += sum(len(n.content) for n in node.walk())
            doc.children.append(node)
        _name_untitled(untitled, doc)
        doc.metadata.update(pages=len(prs.slides), page_estimated=False)
        return doc


def _open(data: bytes) -> Presentation:
    from pptx import Presentation as open_presentation

    try:
        return open_presentation(io.BytesIO(data))
    except Exception as exc:  # python-pptx raises KeyError/ValueError/lxml errors on broken files
        reason = f"{type(exc).__name__}: {exc}"
        raise ParseError(f"the PowerPoint file is damaged or is not a .pptx presentation ({reason})") from exc


def _slide_section(slide: Slide, number: int, images: ImageExtractor, warnings: list[str]) -> ParsedNode:
    meta: dict[str, Any] = {"page": number, "slide": number, "page_estimated": False}
    children = ShapeReader(images, meta, warnings).read(slide.shapes)
    title = _title(slide)
    if title is None:
        title = _first_short_text(slide)
        # The borrowed line is now the title; keep it once.
        children = [c for c in children if not (c.node_type == "paragraph" and c.content == title)]
    notes = _notes(slide)
    if notes:
        prefix = NOTES_PREFIX_ZH if is_mostly_chinese(notes) else NOTES_PREFIX_EN
        children.append(paragraph(prefix + notes, notes=True, **meta))
    return section(title or "", children, **meta)  # an empty title is filled in by _name_untitled


def _title(slide: Slide) -> str | None:
    for shape in slide.shapes:
        if is_title_shape(shape) and shape.has_text_frame:
            text = " ".join(clean(shape.text_frame.text).split("\n"))
            if text:
                return text
    return None


def _first_short_text(slide: Slide) -> str | None:
    """First line of the first text on the slide, when it reads as a title (short, not a sentence)."""
    for shape in reading_order(slide.shapes):
        if shape.has_text_frame and not is_running_placeholder(shape):
            text = clean(shape.text_frame.text)
            if text:
                first = text.split("\n")[0]
                return first if looks_like_heading_text(first, MAX_FALLBACK_TITLE) else None
    return None


def _notes(slide: Slide) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return clean(frame.text) if frame is not None else ""


def _name_untitled(nodes: list[ParsedNode], doc: ParsedDocument) -> None:
    """Name title-less slides "第N页" or "Slide N" in the language of the whole deck."""
    if not nodes:
        return
    sample = doc.title + " ".join(n.content for n in doc.walk())
    chinese = is_mostly_chinese(sample)
    for node in nodes:
        number = node.metadata["slide"]
        node.title = f"第{number}页" if chinese else f"Slide {number}"
        node.metadata["auto_title"] = True
