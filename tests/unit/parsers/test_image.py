"""Image parser on small PIL-rendered PNG/JPEG/TIFF files (real OCR), plus size and damage guards."""

from __future__ import annotations

import io
import re
import struct
import zlib

import pytest
from PIL import Image

from dropqa.ingestion.document import ParsedDocument
from dropqa.ingestion.parsers import get_parser
from dropqa.ingestion.parsers.base import ParseContext, ParseError
from dropqa.ingestion.parsers.image import ImageParser
from tests.unit.parsers.fonts import CJK, render

HEADLINE = "星河云桌面发布说明" if CJK else "Desktop release notes"
BODY = "二号机房计划于2025年投产。" if CJK else "Room two opens in 2025."
FRAME_TEXTS = [
    "第一页讲备份策略" if CJK else "First page backup",
    "第二页讲恢复演练" if CJK else "Second page drill",
]


def encode(img: Image.Image, fmt: str, **kwargs: object) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format=fmt, **kwargs)
    return buf.getvalue()


def squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def parse(data: bytes, name: str, **ctx: object) -> ParsedDocument:
    return ImageParser().parse(data, ParseContext(filename=name, **ctx))  # type: ignore[arg-type]


def test_png_becomes_image_node_plus_ocr_paragraphs() -> None:
    img = render([(30, 25, HEADLINE, 44), (30, 120, BODY, 30)], (720, 300))
    data = encode(img, "PNG")
    doc = parse(data, "发布说明.png")
    assert doc.title == "发布说明" and doc.file_type == "image" and doc.warnings == []
    image, *paragraphs = doc.children
    assert image.node_type == "image" and image.image is not None
    assert image.image.data == data and image.image.mime == "image/png"
    assert (image.image.width, image.image.height) == (720, 300)
    assert squash(image.content) == squash(HEADLINE + BODY)
    assert image.metadata["segment_type"] == "ocr" and image.metadata["page"] == 1
    assert [squash(p.content) for p in paragraphs] == [squash(HEADLINE), squash(BODY)]
    for para in paragraphs:
        assert para.node_type == "paragraph"
        assert para.metadata["segment_type"] == "ocr"
        assert 0.8 < para.metadata["ocr_confidence"] <= 1.0
        assert para.metadata["page"] == 1 and para.metadata["page_estimated"] is False


def test_jpeg_keeps_original_bytes_and_reads_text() -> None:
    data = encode(render([(30, 30, BODY, 34)], (560, 300)), "JPEG", quality=92)
    doc = parse(data, "scan.jpg")
    assert doc.children[0].image is not None and doc.children[0].image.mime == "image/jpeg"
    assert doc.children[0].image.data == data
    assert [squash(n.content) for n in doc.children[1:]] == [squash(BODY)]


def test_multipage_tiff_gives_one_section_per_frame() -> None:
    frames = [render([(20, 20, text, 32)], (480, 240)) for text in FRAME_TEXTS]
    data = encode(frames[0], "TIFF", save_all=True, append_images=frames[1:])
    doc = parse(data, "两页.tiff")
    assert [s.title for s in doc.children] == (["第1页", "第2页"] if CJK else ["Page 1", "Page 2"])
    for number, (sec, text) in enumerate(zip(doc.children, FRAME_TEXTS, strict=True), start=1):
        assert sec.is_section and sec.metadata["page"] == number and sec.metadata["auto_title"] is True
        image, para = sec.children
        assert image.image is not None and image.image.mime == "image/png"  # TIFF frames re-encoded
        assert Image.open(io.BytesIO(image.image.data)).size == (480, 240)
        assert squash(para.content) == squash(text) and para.metadata["page"] == number
    assert doc.metadata["frames"] == 2


def png_header_only(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


def test_40000_square_image_is_refused_before_decoding() -> None:
    with pytest.raises(ParseError, match=r"too large \(1,600,000,000 pixels; the limit is 60,000,000 pixels\)"):
        parse(png_header_only(40_000, 40_000), "bomb.png")
    with pytest.raises(ParseError, match=r"300×200 = 60,000 pixels"):
        parse(encode(Image.new("RGB", (300, 200)), "BMP"), "small.bmp", max_image_pixels=50_000)


def test_corrupt_images_raise_parse_error() -> None:
    with pytest.raises(ParseError, match="damaged or not in a supported format"):
        parse(b"\x89PNG\r\n\x1a\n garbage", "broken.png")
    data = encode(Image.effect_noise((300, 300), 60).convert("RGB"), "PNG")
    with pytest.raises(ParseError, match="damaged"):
        parse(data[: len(data) // 2], "cut.png")


def test_ocr_disabled_and_blank_images_warn_instead_of_silently_empty() -> None:
    data = encode(render([(10, 10, BODY, 30)], (400, 60)), "BMP")
    doc = parse(data, "a.bmp", ocr_enabled=False)
    assert [n.node_type for n in doc.children] == ["image"]
    assert doc.children[0].content == "" and doc.children[0].metadata["segment_type"] == "figure"
    assert doc.children[0].image is not None and doc.children[0].image.mime == "image/png"  # BMP → PNG
    assert doc.warnings == ["OCR is disabled: the text in the image was not extracted"]
    blank = parse(encode(Image.new("L", (200, 200), 255), "PNG"), "blank.png")
    assert blank.warnings == ["OCR found no text in the image"]


def test_registry_returns_image_parser() -> None:
    parser = get_parser("image")
    assert isinstance(parser, ImageParser)
