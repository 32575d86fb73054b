"""OCR behind a tiny interface: image in, paragraphs (text, confidence, box) out.

One process-wide engine is created lazily and shared by every parser (PDF scans,
image files, pictures inside docx/pptx): RapidOCR, whose PP-OCR models ship inside the
wheel — nothing is ever downloaded.

Recognised lines are put in reading order and grouped into paragraphs by layout:
a big vertical gap, an indent change, a very different text height, a short
previous line or a list/heading marker starts a new paragraph.
"""

from __future__ import annotations

import io
import os
import re
import statistics
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.text.headings import CN_UNITS, rule

BBox = tuple[float, float, float, float]
RawLine = tuple[Sequence[Sequence[float]], str, float]  # (4 corner points, text, score)
Engine = Callable[[np.ndarray], list[RawLine]]  # takes a BGR array

MAX_SIDE = 4000
DEFAULT_MAX_PIXELS: int = ParseContext.max_image_pixels  # Settings.ingestion.max_image_pixels by default
NOISE_CONFIDENCE = 0.7  # 1–2 character detections below this are specks (a stray 。 read as "O")


@dataclass
class OcrLine:
    text: str
    confidence: float
    bbox: BBox

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


@dataclass
class OcrParagraph:
    text: str
    confidence: float
    bbox: BBox
    line_height: float = 0.0  # median height of its lines, in image pixels
    line_count: int = 1


@dataclass
class OcrResult:
    paragraphs: list[OcrParagraph] = field(default_factory=list)
    width: int = 0
    height: int = 0

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.paragraphs)

    @property
    def confidence(self) -> float:
        return weighted_confidence([(p.text, p.confidence) for p in self.paragraphs])


def weighted_confidence(items: Sequence[tuple[str, float]]) -> float:
    total = sum(len(text) for text, _ in items)
    if total == 0:
        return 0.0
    return sum(len(text) * conf for text, conf in items) / total


# ---------------------------------------------------------------- engine


_ENGINE: Engine | None = None
_ENGINE_LOCK = threading.Lock()
_RUN_LOCK = threading.Lock()
_PIL_LOCK = threading.Lock()


class _RapidEngine:
    def __init__(self) -> None:
        from rapidocr_onnxruntime import RapidOCR

        threads = _omp_threads()
        self._ocr = RapidOCR(intra_op_num_threads=threads) if threads else RapidOCR()

    def __call__(self, bgr: np.ndarray) -> list[RawLine]:
        result, _ = self._ocr(bgr)
        return [(box, str(text), float(score)) for box, text, score in result or []]


def _omp_threads() -> int | None:
    """``OMP_NUM_THREADS``, which caps the embedding model's (OpenMP) threads, caps the OCR models' too: ONNX
    Runtime ignores it and takes a thread per core, spinning between the models' steps. Where processes
    share the cores (indexing workers beside a server, the test suite's workers) a second thread mostly
    spins waiting for a core: twice the CPU for the same text. Unset (or not a number): ONNX Runtime's own
    choice."""
    try:
        threads = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return None
    return threads if threads >= 1 else None


def get_engine() -> Engine:
    """The process-wide engine, created on first use (thread-safe)."""
    global _ENGINE
    if _ENGINE is None:
        with _ENGINE_LOCK:
            if _ENGINE is None:
                _ENGINE = _RapidEngine()
    return _ENGINE


# ---------------------------------------------------------------- images


def open_image(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> Image.Image:
    """Open image bytes lazily (header only) and refuse absurd dimensions before decoding."""
    try:
        with _PIL_LOCK:  # MAX_IMAGE_PIXELS is a PIL global: set it for this call only
            previous = Image.MAX_IMAGE_PIXELS
            Image.MAX_IMAGE_PIXELS = max_pixels
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                    img = Image.open(io.BytesIO(data))
            finally:
                Image.MAX_IMAGE_PIXELS = previous
    except Image.DecompressionBombError as exc:
        found = re.search(r"\((\d+) pixels\)", str(exc))
        size = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
        limit = f"the limit is {max_pixels:,} pixels"
        raise ParseError(f"refused: the image is too large ({size}; {limit})") from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ParseError(f"the image is damaged or not in a supported format: {exc}") from exc
    check_pixels(img.size, max_pixels)
    return img


def check_pixels(size: tuple[int, int], max_pixels: int) -> None:
    width, height = size
    if width * height > max_pixels:
        raise ParseError(
            f"refused: the image is too large ({width}×{height} = {width * height:,} pixels; "
            f"the limit is {max_pixels:,} pixels)"
        )


def to_rgb(img: Image.Image) -> Image.Image:
    """Decode to RGB (transparent areas become white); raises ParseError on broken pixel data."""
    try:
        if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
            rgba = img.convert("RGBA")
            background = Image.new("RGB", rgba.size, "white")
            background.paste(rgba, mask=rgba.getchannel("A"))
            return background
        return img.convert("RGB")
    except (OSError, ValueError, SyntaxError) as exc:
        raise ParseError(f"the image is damaged (cannot decode its pixels): {exc}") from exc


def recognize(data: bytes, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> OcrResult:
    """OCR image bytes in any format PIL reads."""
    img = open_image(data, max_pixels)
    try:
        img = ImageOps.exif_transpose(img) or img
    except (OSError, ValueError, SyntaxError) as exc:
        raise ParseError(f"the image is damaged: {exc}") from exc
    return recognize_image(img)


def recognize_image(img: Image.Image) -> OcrResult:
    """OCR a PIL image; one longer than MAX_SIDE is downscaled first (boxes are in original pixels)."""
    width, height = img.size
    if max(width, height) > MAX_SIDE and img.format == "JPEG":
        img.draft("RGB", (MAX_SIDE, MAX_SIDE))  # let the JPEG decoder shrink by 1/2, 1/4 …
    rgb = to_rgb(img)
    if max(rgb.size) > MAX_SIDE:
        factor = MAX_SIDE / max(rgb.size)
        target = (max(1, round(rgb.width * factor)), max(1, round(rgb.height * factor)))
        rgb = rgb.resize(target, Image.Resampling.LANCZOS)
    return _run(np.asarray(rgb), rgb.width / width, (width, height))


def recognize_array(img: np.ndarray) -> OcrResult:
    """OCR an H×W (grey), H×W×3 (RGB) or H×W×4 (RGBA) uint8 array."""
    if img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (1, 3, 4)):
        raise ParseError(f"cannot OCR an array of shape {img.shape}")
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    return recognize_image(Image.fromarray(np.ascontiguousarray(img).astype(np.uint8)))


def _run(rgb: np.ndarray, scale: float, size: tuple[int, int]) -> OcrResult:
    engine = get_engine()
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    with _RUN_LOCK:
        raw = engine(bgr)
    lines = [_to_line(box, text, score, scale) for box, text, score in raw if text.strip()]
    lines = [ln for ln in lines if not (len(ln.text) <= 2 and ln.confidence < NOISE_CONFIDENCE)]
    return OcrResult(paragraphs=group_paragraphs(lines), width=size[0], height=size[1])


def _to_line(box: Sequence[Sequence[float]], text: str, score: float, scale: float) -> OcrLine:
    xs = [float(p[0]) / scale for p in box]
    ys = [float(p[1]) / scale for p in box]
    return OcrLine(text.strip(), max(0.0, min(1.0, score)), (min(xs), min(ys), max(xs), max(ys)))


# ---------------------------------------------------------------- layout


class LineLike(Protocol):
    text: str

    @property
    def bbox(self) -> BBox: ...


_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_SPACE_BEFORE = re.compile(r"[\w.,;:!?)\]\"'%]$")
_SPACE_AFTER = re.compile(r"^[\w(\[\"'&]")
_MARKER = re.compile("^(?:" + "|".join([
    rule("cn_item").pattern(numerals=CN_UNITS),
    rule("chapter").pattern(kinds="[章节篇部条]"),  # 第N章 … 第N条
    rule("cn_paren").pattern(numerals=CN_UNITS + r"\d", count="{1,3}"),
    rule("arabic_item").pattern(sep="[.．、)）]"),
    rule("decimal").pattern(tail=r"\s"),
    r"[•·▪●○◦■◆★\-–*]\s",  # bullets
    rule("appendix").pattern(words="附[录表件]"),
    r"[\u4e00-\u9fff]{2,6}[：:]",  # a form label such as 记录人：
]) + ")")


def is_cjk(char: str) -> bool:
    return bool(_CJK.match(char))


def join_lines(parts: Sequence[str]) -> str:
    """Join wrapped lines: CJK without a space, Latin with one, fixing hyphenation."""
    out = ""
    for raw in parts:
        part = raw.strip()
        if not part:
            continue
        if not out:
            out = part
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and part[0].islower():
            out = out[:-1] + part
        elif is_cjk(out[-1]) or is_cjk(part[0]):
            out += part
        elif _SPACE_BEFORE.search(out) and _SPACE_AFTER.match(part):
            out += " " + part
        else:
            out += part
    return out


def starts_with_marker(text: str) -> bool:
    """True when a line opens a list item or a numbered heading (``一、``, ``1.``, ``3.2 ``, ``•``)."""
    return bool(_MARKER.match(text.strip()))


def reading_order(lines: Sequence[OcrLine]) -> list[OcrLine]:
    """Sort top-to-bottom in rows, left-to-right inside a row; glue fragments split by the detector."""
    rows: list[list[OcrLine]] = []
    for line in sorted(lines, key=lambda ln: (ln.bbox[1] + ln.bbox[3]) / 2):
        center = (line.bbox[1] + line.bbox[3]) / 2
        if rows:
            last = rows[-1]
            row_center = statistics.fmean((ln.bbox[1] + ln.bbox[3]) / 2 for ln in last)
            if abs(center - row_center) < 0.5 * min(line.height, min(ln.height for ln in last)):
                last.append(line)
                continue
        rows.append([line])
    ordered: list[OcrLine] = []
    for row in rows:
        merged: list[OcrLine] = []
        for line in sorted(row, key=lambda ln: ln.bbox[0]):
            prev = merged[-1] if merged else None
            if prev and line.bbox[0] - prev.bbox[2] < 1.5 * max(prev.height, line.height):
                merged[-1] = _glue(prev, line)
            else:
                merged.append(line)
        ordered.extend(merged)
    return ordered


def _glue(a: OcrLine, b: OcrLine) -> OcrLine:
    gap = b.bbox[0] - a.bbox[2]
    both_cjk = is_cjk(a.text[-1]) and is_cjk(b.text[0])
    wide = gap > 0.4 * max(a.height, b.height) and not both_cjk
    text = f"{a.text} {b.text}" if wide else join_lines([a.text, b.text])
    conf = weighted_confidence([(a.text, a.confidence), (b.text, b.confidence)])
    return OcrLine(text, conf, union_box([a.bbox, b.bbox]))


def union_box(boxes: Sequence[BBox]) -> BBox:
    x0s, y0s, x1s, y1s = zip(*boxes, strict=True)
    return (min(x0s), min(y0s), max(x1s), max(y1s))


def _height(line: LineLike) -> float:
    return max(1.0, line.bbox[3] - line.bbox[1])


def _columns(lines: Sequence[LineLike], context: Sequence[LineLike]) -> list[tuple[float, float]]:
    """For each line, its column's (left, right): the extent of the lines overlapping it horizontally."""
    bounds = []
    for line in lines:
        x0, x1 = line.bbox[0], line.bbox[2]
        overlapping = [o.bbox for o in context if o.bbox[0] < x1 and o.bbox[2] > x0]
        bounds.append((min([x0, *(b[0] for b in overlapping)]), max([x1, *(b[2] for b in overlapping)])))
    return bounds


L = TypeVar("L", bound=LineLike)


def _starts_paragraph(group: Sequence[LineLike], cur: LineLike, column: tuple[float, float]) -> bool:
    prev = group[-1]
    h = statistics.median(_height(ln) for ln in group)
    hc = _height(cur)
    if max(h, hc) / min(h, hc) > 1.4:  # detector boxes of one font size vary by up to ~35%
        return True
    gap = cur.bbox[1] - prev.bbox[3]
    if gap > 0.8 * h or gap < -0.5 * h:
        return True
    if cur.bbox[0] >= prev.bbox[2] or cur.bbox[2] <= prev.bbox[0]:
        return True
    left, right = column
    indent = cur.bbox[0] - prev.bbox[0]
    first_line_full = prev.bbox[2] - prev.bbox[0] > 0.6 * (right - left)
    first_line_indent = len(group) == 1 and -4 * h <= indent < 0 and first_line_full
    if abs(indent) > 0.8 * h and not first_line_indent:
        return True
    if prev.bbox[2] < right - max(3 * h, 0.2 * (right - left)):  # the previous line ended early
        return True
    return starts_with_marker(cur.text)


def split_paragraphs(lines: Sequence[L], context: Sequence[LineLike] | None = None) -> list[list[L]]:
    """Group lines (already in reading order) into paragraphs by layout.

    ``context`` (default: ``lines``) are all the lines of the page, used to find column edges.
    """
    columns = _columns(lines, lines if context is None else context)
    groups: list[list[L]] = []
    for i, line in enumerate(lines):
        if groups and not _starts_paragraph(groups[-1], line, columns[i - 1]):
            groups[-1].append(line)
        else:
            groups.append([line])
    return groups


def group_paragraphs(lines: Sequence[OcrLine]) -> list[OcrParagraph]:
    paragraphs = []
    for group in split_paragraphs(reading_order(lines)):
        text = join_lines([ln.text for ln in group])
        box = union_box([ln.bbox for ln in group])
        conf = weighted_confidence([(ln.text, ln.confidence) for ln in group])
        height = statistics.median(ln.height for ln in group)
        paragraphs.append(OcrParagraph(text, round(conf, 4), box, height, len(group)))
    return paragraphs


__all__ = [
    "OcrLine",
    "OcrParagraph",
    "OcrResult",
    "check_pixels",
    "get_engine",
    "group_paragraphs",
    "is_cjk",
    "join_lines",
    "open_image",
    "reading_order",
    "recognize",
    "recognize_array",
    "recognize_image",
    "split_paragraphs",
    "starts_with_marker",
    "to_rgb",
    "union_box",
    "weighted_confidence",
]
