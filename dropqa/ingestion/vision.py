"""Images read by a vision model when one is configured (``models.vision``; seed 004 §7.1).

Each image of a parsed document (a standalone image file, or one embedded in Word, PowerPoint or PDF)
is sent to the vision model as a base64 data URL, downscaled to ``max_side``; the structured reply
(:class:`ImageReading`) classifies it as table / chart / figure / photo / text and gives its content.
The image node then holds that content — table rows, a chart's data summary, a description, the
text — so it is found by full-text and embedding search and answers cite it; its metadata says the
kind and that the vision model read it. Runs after parsing (parsers never touch the network), at most
``max_calls_per_document`` distinct images per document, ``concurrency`` requests at a time.

Without a vision model, and for an image whose request fails, times out or answers something
unusable, the node keeps what the parser gave it (its OCR text) and the job gets a warning.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from PIL import Image
from pydantic import BaseModel, Field

from dropqa.config import Settings
from dropqa.ingestion import prompts
from dropqa.ingestion.document import ParsedDocument, ParsedNode
from dropqa.ingestion.tables import render_table
from dropqa.models.chat import batch_structured, vision_providers
from dropqa.text.lang import detect_language

log = logging.getLogger(__name__)

READABLE_MIMES = frozenset({"image/png", "image/jpeg", "image/gif", "image/bmp", "image/tiff", "image/webp"})
MIN_SIDE = 24  # icons and bullets: nothing to read
MAX_CELLS = 20_000  # a reply with more table cells than this is cut (a runaway model)


class ImageReading(BaseModel):
    """What the vision model says an image is and holds."""

    kind: Literal["table", "chart", "figure", "photo", "text"] = Field(
        description="table: rows and columns of data; chart: a plot of data; figure: a diagram or screenshot; "
                    "photo: a photograph or illustration; text: mostly running text")
    title: str = Field("", description="the image's title, or a short title guessed from its content")
    header: list[str] = Field(default_factory=list, description="table: the column names")
    rows: list[list[str]] = Field(default_factory=list, description="table: the cells of each row, as written")
    summary: str = Field("", description="chart: what is plotted and the data it shows")
    description: str = Field("", description="figure or photo: a detailed description")
    text: str = Field("", description="text: the text in the image, as written")


@dataclass
class VisionStats:
    read: int = 0  # distinct images the model read
    failed: int = 0  # distinct images it could not read (OCR kept)
    capped: int = 0  # distinct images over the per-document cap (OCR kept)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"read": self.read, "failed": self.failed, "capped": self.capped}


class VisionReader:
    """Reads the images of a parsed document with the configured vision model."""

    def __init__(self, name: str, model: BaseChatModel, *, max_side: int = 1024, max_calls: int = 20,
                 concurrency: int = 2):
        self.name = name
        self.model = model
        self.max_side = max_side
        self.max_calls = max_calls
        self.concurrency = max(1, concurrency)

    @classmethod
    def from_settings(cls, settings: Settings) -> VisionReader | None:
        found = vision_providers(settings.models)
        if not found:
            return None
        cfg = settings.models.vision
        return cls(*found[0], max_side=cfg.max_side, max_calls=cfg.max_calls_per_document,
                   concurrency=cfg.concurrency)

    def read(self, doc: ParsedDocument, document: str) -> VisionStats:
        """Replace the content of each readable image node with the model's reading (in place); add a
        warning to ``doc`` for images left with their OCR text. Never raises for a model failure."""
        stats = VisionStats()
        groups: dict[str, list[ParsedNode]] = {}  # one request per distinct image (logos repeat)
        for node in doc.walk():
            if _readable(node):
                assert node.image is not None
                groups.setdefault(hashlib.sha256(node.image.data).hexdigest(), []).append(node)
        if not groups:
            return stats
        keys = list(groups)
        sent, stats.capped = keys[: self.max_calls], max(0, len(keys) - self.max_calls)
        language = detect_language(doc.title + "\n" + "\n".join(n.content for n in doc.walk() if n.content)[:20_000])
        prompt = prompts.fill("read_image", language, document=document)
        messages: list[list[HumanMessage] | None] = []
        for key in sent:
            url = data_url(groups[key][0].image.data, self.max_side)  # type: ignore[union-attr]
            messages.append(None if url is None else [HumanMessage(content=[
                {"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": url}}])])
        todo = [m for m in messages if m is not None]
        replies = iter(batch_structured([(self.name, self.model)], todo, ImageReading, self.concurrency))
        for key, message in zip(sent, messages, strict=True):
            reading = _reading(next(replies)) if message is not None else ValueError("the image cannot be decoded")
            if isinstance(reading, Exception):
                stats.failed += 1
                stats.errors.append(f"{type(reading).__name__}: {str(reading)[:200]}")
                continue
            stats.read += 1
            for node in groups[key]:
                self._apply(node, reading, doc)
        if stats.failed:
            doc.warnings.append(f"the vision model ({self.name}) could not read {stats.failed} of {len(sent)} "
                                f"images; they keep their OCR text ({stats.errors[0]})")
        if stats.capped:
            doc.warnings.append(f"{stats.capped} images beyond the limit of {self.max_calls} per document were "
                                "OCR'd instead of read by the vision model")
        return stats

    def _apply(self, node: ParsedNode, reading: ImageReading, doc: ParsedDocument) -> None:
        title = reading.title.strip() or None
        meta: dict[str, Any] = {"segment_type": reading.kind, "vision": {"kind": reading.kind, "model": self.name}}
        if title:
            meta["vision"]["title"] = title
        if reading.kind == "table":
            header = [str(h).strip() for h in reading.header]
            rows = _cut_rows([[str(c).strip() for c in row] for row in reading.rows])
            meta["table"] = {"header": header, "rows": rows}
            content = render_table(header, rows, title=title)
        else:
            body = {"chart": reading.summary, "text": reading.text}.get(reading.kind, reading.description)
            content = "\n".join(p for p in (title, body.strip()) if p)
        node.metadata.pop("ocr_confidence", None)
        node.metadata.update(meta)
        node.content = content
        if doc.file_type == "image":
            _drop_ocr_paragraphs(doc, node)


def _readable(node: ParsedNode) -> bool:
    image = node.image
    if node.node_type != "image" or image is None or image.mime not in READABLE_MIMES:
        return False
    return not (image.width and image.height and min(image.width, image.height) < MIN_SIDE)


def data_url(data: bytes, max_side: int) -> str | None:
    """The image as a ``data:image/png;base64,…`` URL, its longer side at most ``max_side`` pixels;
    None when Pillow cannot decode it."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            frame = img.convert("RGBA" if img.mode in ("RGBA", "LA", "P") else "RGB")
    except Exception:  # a damaged image: the parser's OCR result stays
        return None
    if max(frame.size) > max_side:
        frame.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    frame.save(buf, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _reading(reply: ImageReading | Exception) -> ImageReading | Exception:
    """The model's reading, or why it cannot be used (a failed request, an unreadable reply, no content)."""
    if isinstance(reply, Exception):
        log.warning("vision request failed: %s: %s", type(reply).__name__, reply)
        return reply
    parsed = reply
    has_content = (parsed.rows or parsed.header) if parsed.kind == "table" else (
        {"chart": parsed.summary, "text": parsed.text}.get(parsed.kind, parsed.description).strip())
    if not has_content:
        return ValueError(f"the reply says {parsed.kind!r} but gives no content")
    return parsed


def _cut_rows(rows: list[list[str]]) -> list[list[str]]:
    out, cells = [], 0
    for row in rows:
        cells += len(row)
        if cells > MAX_CELLS:
            break
        out.append(row)
    return out


def _drop_ocr_paragraphs(doc: ParsedDocument, image: ParsedNode) -> None:
    """A standalone image's OCR paragraphs follow its node; the vision reading replaces them."""
    for parent_children in [doc.children, *(n.children for n in doc.walk())]:
        if not any(child is image for child in parent_children):
            continue
        at = next(i for i, child in enumerate(parent_children) if child is image)
        end = at + 1
        while (end < len(parent_children) and parent_children[end].node_type == "paragraph"
               and parent_children[end].metadata.get("segment_type") == "ocr"):
            end += 1
        del parent_children[at + 1 : end]
        return
