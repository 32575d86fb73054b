"""OCR module: layout grouping (pure), real RapidOCR runs on small rendered images, size guards."""

from __future__ import annotations

import io
import re
import struct
import threading
import time
import zlib

import numpy as np
import pytest
from PIL import Image

from dropqa.ingestion import ocr
from dropqa.ingestion.ocr import OcrLine, group_paragraphs, join_lines, reading_order
from dropqa.ingestion.parsers.base import ParseError
from tests.unit.parsers.fonts import CJK, render


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def squash(text: str) -> str:
    """Letters, digits and CJK only: OCR may differ in spaces and small punctuation, not in words."""
    return re.sub(r"[\W_]+", "", text).lower()


def png_header_only(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 16)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


if CJK:
    TITLE, P2 = "机房巡检报告", "二号机房计划于2025年投产。"
    P1_A, P1_B = "一号机房全年平均PUE为1.32，较上年下降0.05，", "空调系统完成节能改造。"
else:
    TITLE, P2 = "Inspection Report", "Room two opens in 2025."
    P1_A, P1_B = "Room one PUE was 1.32 this year and", "cooling was upgraded."


# ---------------------------------------------------------------- pure layout


def line(text: str, x0: float, y0: float, x1: float, h: float = 20) -> OcrLine:
    return OcrLine(text, 0.9, (x0, y0, x1, y0 + h))


def test_join_lines_cjk_latin_and_hyphenation() -> None:
    assert join_lines(["支持GPU", "共享调度，单个GPU"]) == "支持GPU共享调度，单个GPU"
    assert join_lines(["The backup window is config-", "urable per tenant", "and region."]) == (
        "The backup window is configurable per tenant and region."
    )
    assert join_lines(["7×", "24小时远程支持"]) == "7×24小时远程支持"
    assert join_lines(["release 1.2", "(beta)", "", "  "]) == "release 1.2 (beta)"


def test_paragraphs_split_on_short_line_indent_gap_height_and_markers() -> None:
    lines = [
        line("第一段第一行文字很长很长", 40, 0, 600),
        line("第一段第二行", 40, 28, 300),  # ends early: the paragraph ends
        line("第二段开头", 80, 56, 600),  # first-line indent ...
        line("第二段继续", 40, 84, 600),  # ... the next line goes back to the margin
        line("第二段结束", 40, 112, 200),
        line("Big heading", 40, 170, 400, h=40),  # big gap and taller text
        line("1. first item", 40, 230, 600),
        line("2. second item", 40, 258, 600),  # list marker
        line("continued item text", 40, 286, 600),
    ]
    paragraphs = group_paragraphs(lines)
    assert [p.text for p in paragraphs] == [
        "第一段第一行文字很长很长第一段第二行",
        "第二段开头第二段继续第二段结束",
        "Big heading",
        "1. first item",
        "2. second item continued item text",
    ]
    assert [p.line_count for p in paragraphs] == [2, 3, 1, 1, 2]
    assert paragraphs[1].bbox == (40, 56, 600, 132)
    assert paragraphs[2].line_height == 40


def test_reading_order_sorts_rows_and_glues_split_fragments() -> None:
    lines = [
        line("second row", 40, 60, 300),
        line("world", 150, 2, 260),  # same row as "hello", small gap: one line
        line("hello", 40, 0, 130),
        line("far right cell", 700, 61, 900),  # same row, far away: its own line
    ]
    ordered = reading_order(lines)
    assert [ln.text for ln in ordered] == ["hello world", "second row", "far right cell"]
    assert ordered[0].bbox == (40, 0, 260, 22)


def test_result_text_and_length_weighted_confidence() -> None:
    paragraphs = [ocr.OcrParagraph("abc", 1.0, (0, 0, 1, 1)), ocr.OcrParagraph("d", 0.6, (0, 2, 1, 3))]
    result = ocr.OcrResult(paragraphs)
    assert result.text == "abc\nd"
    assert result.confidence == pytest.approx((3 * 1.0 + 0.6) / 4)
    assert ocr.OcrResult().confidence == 0.0
    assert ocr.OcrResult().text == ""


# ---------------------------------------------------------------- real OCR


def test_recognize_png_bytes_groups_paragraphs_by_layout() -> None:
    layout = [(40, 30, TITLE, 48), (40, 120, P1_A, 30), (40, 162, P1_B, 30), (40, 260, P2, 30)]
    img = render(layout, (900, 330))
    result = ocr.recognize(png(img))
    assert [squash(p.text) for p in result.paragraphs] == [squash(TITLE), squash(P1_A + P1_B), squash(P2)]
    if CJK:
        assert re.search(r"0\.05[，,]空调", result.paragraphs[1].text)  # CJK lines joined without a space
    title, body, last = result.paragraphs
    assert title.line_height > 1.3 * body.line_height
    assert body.line_count == 2
    assert title.bbox[3] < body.bbox[1] < body.bbox[3] < last.bbox[1]
    assert all(0.8 < p.confidence <= 1.0 for p in result.paragraphs)
    assert result.text == "\n".join(p.text for p in result.paragraphs)
    assert (result.width, result.height) == (900, 330)


def test_recognize_array_accepts_rgba_and_blank_images() -> None:
    text = "备份窗口02:00" if CJK else "Backup window 02:00"
    rgba = np.asarray(render([(20, 20, text, 36)], (420, 240)).convert("RGBA"))
    result = ocr.recognize_array(rgba)
    assert [squash(p.text) for p in result.paragraphs] == [squash(text)]
    blank = ocr.recognize_array(np.full((200, 200), 255, dtype=np.uint8))
    assert blank.paragraphs == [] and blank.text == "" and blank.confidence == 0.0


# ---------------------------------------------------------------- guards and engine


def test_huge_image_is_refused_from_its_header() -> None:
    before = Image.MAX_IMAGE_PIXELS
    with pytest.raises(ParseError, match="too large"):
        ocr.recognize(png_header_only(40_000, 40_000))
    assert before == Image.MAX_IMAGE_PIXELS  # the PIL global is restored
    with pytest.raises(ParseError, match=r"100×80 = 8,000 pixels; the limit is 5,000"):
        ocr.recognize(png(Image.new("RGB", (100, 80), "white")), max_pixels=5_000)


def test_corrupt_and_truncated_images_raise_parse_error() -> None:
    with pytest.raises(ParseError, match="damaged or not in a supported format"):
        ocr.recognize(b"this is not an image")
    data = png(Image.effect_noise((300, 300), 60).convert("RGB"))
    with pytest.raises(ParseError, match="damaged"):
        ocr.recognize(data[: len(data) // 2])


def test_huge_images_are_downscaled_and_boxes_mapped_back(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, ...]] = []

    def fake_engine(bgr: np.ndarray) -> list[ocr.RawLine]:
        seen.append(bgr.shape)
        return [([[100, 10], [300, 10], [300, 40], [100, 40]], "hello", 0.9)]

    monkeypatch.setattr(ocr, "_ENGINE", fake_engine)
    result = ocr.recognize_image(Image.new("RGB", (8000, 400), "white"))
    assert seen == [(200, 4000, 3)]
    assert result.paragraphs[0].bbox == (200, 20, 600, 80)
    assert (result.width, result.height) == (8000, 400)


def test_engine_is_created_once_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    created: list[object] = []

    class SlowEngine:
        def __init__(self) -> None:
            time.sleep(0.05)
            created.append(self)

        def __call__(self, bgr: np.ndarray) -> list[ocr.RawLine]:
            return []

    monkeypatch.setattr(ocr, "_ENGINE", None)
    monkeypatch.setattr(ocr, "_RapidEngine", SlowEngine)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(ocr.get_engine())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(created) == 1
    assert all(engine is created[0] for engine in got)


def test_omp_num_threads_caps_the_ocr_models_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """ONNX Runtime ignores OMP_NUM_THREADS; the engine passes it on (tests/conftest.py sets 1)."""
    for value, threads in (("1", 1), ("3", 3), ("0", None), ("", None), ("many", None)):
        monkeypatch.setenv("OMP_NUM_THREADS", value)
        assert ocr._omp_threads() == threads, value
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    engine = ocr._RapidEngine()._ocr
    sessions = [engine.text_det.infer.session, engine.text_cls.infer.session, engine.text_rec.session.session]
    assert [s.get_session_options().intra_op_num_threads for s in sessions] == [1, 1, 1]
