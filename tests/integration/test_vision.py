"""Images read by a vision model (seed 004 §7.1): the real langchain-openai client sends real PNG bytes
to the scripted OpenAI-compatible server (tests/support/scripted_openai.py); parsers, OCR and the
store are real. Offline and on a failing model, the image keeps its OCR text."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from dropqa.config import Settings
from dropqa.ingestion.pipeline import Indexer
from dropqa.runtime.run import ask
from dropqa.store.db import Database
from tests.support import ScriptedOpenAI
from tests.support.scripted_openai import image_urls, text_parts

pytestmark = pytest.mark.integration

TABLE = {"kind": "table", "title": "Quarterly revenue by region", "header": ["Region", "Q3 revenue"],
         "rows": [["Northwind", "4.2 million EUR"], ["Southgate", "3.1 million EUR"]]}
CHART = {"kind": "chart", "title": "Visitors per month",
         "summary": "Bar chart of monthly visitors: January 120, February 180, March 260; a steady rise."}
PHOTO = {"kind": "photo", "title": "Sunset over the harbour",
         "description": "A photograph of a harbour at sunset, orange sky fading into deep blue water."}


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size)


def table_png() -> bytes:
    """A small rendered table: header row, two data rows, grid lines."""
    img = Image.new("RGB", (480, 150), "white")
    draw = ImageDraw.Draw(img)
    cells = [["Region", "Q3 revenue"], ["Northwind", "4.2 million EUR"], ["Southgate", "3.1 million EUR"]]
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            x, y = 10 + c * 230, 10 + r * 45
            draw.rectangle((x, y, x + 230, y + 45), outline="black", width=2)
            draw.text((x + 10, y + 10), text, fill="black", font=_font(22))
    return _png(img)


def chart_png() -> bytes:
    """Bars of growing height with axes: a chart-like image."""
    img = Image.new("RGB", (320, 220), "white")
    draw = ImageDraw.Draw(img)
    draw.line((30, 200, 310, 200), fill="black", width=2)
    draw.line((30, 10, 30, 200), fill="black", width=2)
    for i, height in enumerate((60, 90, 130, 170)):
        draw.rectangle((50 + i * 65, 200 - height, 95 + i * 65, 199), fill=(40, 90 + i * 30, 200))
    return _png(img)


def photo_png() -> bytes:
    """A smooth two-way colour gradient: photo-like, no text."""
    img = Image.new("RGB", (256, 192))
    img.putdata([(x, (x + y) // 2, 255 - y) for y in range(192) for x in range(256)])
    return _png(img)


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


class VisionScript:
    """Answers each vision request from the reply registered for its image's size (the image is
    downscaled, so the script keys on the aspect ratio), or fails as told."""

    def __init__(self, replies: dict[str, dict[str, Any]] | None = None, fail: str | None = None):
        self.replies = replies or {}
        self.fail = fail  # None | "status" | "timeout" | "garbage"

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.fail == "status":
            return {"status": 500, "message": "the vision backend is down"}
        if self.fail == "timeout":
            return {"delay": 3.0, "content": json.dumps(PHOTO)}
        if self.fail == "garbage":
            return {"content": "I see a nice picture."}
        (url,) = image_urls(body)
        img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        key = f"{img.width / img.height:.2f}"
        return {"content": json.dumps(self.replies[key], ensure_ascii=False)}


def ratio(png: bytes) -> str:
    img = Image.open(io.BytesIO(png))
    return f"{img.width / img.height:.2f}"


def vision_indexer(services, llm: ScriptedOpenAI | None, **vision: Any) -> Indexer:
    models = {"vision": llm.chat_config(timeout_s=1.0, **vision)} if llm else {}
    settings = Settings(data_dir=services.settings.data_dir, database_url=services.settings.database_url,
                        models=models, ingestion={"parse_in_subprocess": False})
    return Indexer(services.db, settings, services.embedder)


def nodes_of(db: Database, document_id: str) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(
            "SELECT n.id, n.node_type, n.content, n.metadata, e.node_id IS NOT NULL AS embedded FROM nodes n "
            "LEFT JOIN embeddings e ON e.node_id = n.id WHERE n.document_id = %s "
            "AND n.node_type NOT IN ('section', 'document') ORDER BY n.position", (document_id,)).fetchall()


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def ocr_baseline(services, tmp_path_factory) -> dict[str, Any]:
    """The table image indexed offline: what OCR gives it today."""
    path = write(tmp_path_factory.mktemp("offline"), "revenue.png", table_png())
    outcome = vision_indexer(services, None).index_file(path, "vision/offline/revenue.png")
    assert outcome.status == "indexed", outcome.error
    return {"outcome": outcome, "nodes": nodes_of(services.db, outcome.document_id)}


def test_offline_images_are_ocrd_as_before(services, ocr_baseline):
    outcome, nodes = ocr_baseline["outcome"], ocr_baseline["nodes"]
    image = nodes[0]
    assert image["node_type"] == "image" and "vision" not in image["metadata"]
    assert "Northwind" in image["content"] and image["metadata"]["segment_type"] == "ocr"  # RapidOCR read it
    assert [n["node_type"] for n in nodes[1:]] and all(n["node_type"] == "paragraph" for n in nodes[1:])
    assert not any("vision" in w for w in outcome.warnings)


def test_table_image_becomes_a_searchable_table_the_answer_cites(services, tmp_path):
    png = table_png()
    path = write(tmp_path, "revenue.png", png)
    with ScriptedOpenAI(VisionScript({ratio(png): TABLE})) as llm:
        outcome = vision_indexer(services, llm, max_side=240).index_file(path, "vision/revenue.png")
        requests, model = list(llm.requests), f"scripted@{llm.base_url}"
    assert outcome.status == "indexed", outcome.error
    assert len(requests) == 1
    (url,) = image_urls(requests[0])
    assert url.startswith("data:image/png;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert sent.format == "PNG" and (sent.width, sent.height) == (240, 75)  # 480x150 downscaled to max_side
    prompt = text_parts(requests[0])
    assert "revenue.png" in prompt and "not instructions" in prompt  # the English prompt file, filled
    nodes = nodes_of(services.db, outcome.document_id)
    assert len(nodes) == 1  # the reading replaces the OCR paragraphs of a standalone image
    image = nodes[0]
    assert image["node_type"] == "image" and image["embedded"]
    assert image["metadata"]["segment_type"] == "table"
    assert image["metadata"]["vision"] == {"kind": "table", "model": model,
                                           "title": "Quarterly revenue by region"}
    assert image["metadata"]["table"] == {"header": TABLE["header"], "rows": TABLE["rows"]}
    assert image["content"].splitlines() == ["Quarterly revenue by region", "Region | Q3 revenue",
                                             "Region: Northwind | Q3 revenue: 4.2 million EUR",
                                             "Region: Southgate | Q3 revenue: 3.1 million EUR"]
    assert outcome.enrichment  # the version was written with its enrichment record
    with services.db.connection() as conn:
        found = conn.execute("SELECT id FROM nodes WHERE document_id = %s AND node_type NOT IN ('section', 'document') "
                             "AND search_vector @@ "
                             "plainto_tsquery('simple', 'Southgate')", (outcome.document_id,)).fetchall()
    assert [r["id"] for r in found] == [image["id"]]
    result = ask(services, "What was the Q3 revenue of the Northwind region?")
    assert result.answerable and "4.2 million EUR" in result.answer
    cited = [s for s in result.sources if s.cited]
    assert cited and cited[0].node_id == str(image["id"]) and cited[0].document_name == "revenue.png"


def test_embedded_images_are_read_up_to_the_cap_the_rest_ocrd(services, tmp_path):
    from docx import Document
    from docx.shared import Inches

    chart, photo = chart_png(), photo_png()
    doc = Document()
    doc.add_heading("Harbour visitor report", level=1)
    doc.add_paragraph("Monthly visitor numbers for the harbour museum.")
    for png in (chart, photo, table_png()):
        doc.add_picture(io.BytesIO(png), width=Inches(3))
    path = tmp_path / "harbour.docx"
    doc.save(path)
    script = VisionScript({ratio(chart): CHART, ratio(photo): PHOTO})
    with ScriptedOpenAI(script) as llm:
        outcome = vision_indexer(services, llm, max_calls_per_document=2, concurrency=2).index_file(
            path, "vision/harbour.docx")
        assert len(llm.requests) == 2
    assert outcome.status == "indexed", outcome.error
    images = [n for n in nodes_of(services.db, outcome.document_id) if n["node_type"] == "image"]
    assert [n["metadata"].get("segment_type") for n in images] == ["chart", "photo", "ocr"]
    assert images[0]["content"] == "Visitors per month\n" + CHART["summary"]
    assert images[1]["content"] == "Sunset over the harbour\n" + PHOTO["description"]
    assert "Northwind" in images[2]["content"] and "vision" not in images[2]["metadata"]  # over the cap: OCR
    assert all(n["embedded"] for n in images)
    assert any("1 images beyond the limit of 2 per document" in w for w in outcome.warnings)


@pytest.mark.parametrize("failure", ["status", "timeout", "garbage"])
def test_failing_vision_model_falls_back_to_ocr_with_a_warning(services, tmp_path, ocr_baseline, failure):
    path = write(tmp_path, "revenue.png", table_png())
    with ScriptedOpenAI(VisionScript(fail=failure)) as llm:
        outcome = vision_indexer(services, llm).index_file(path, f"vision/fail-{failure}/revenue.png")
    assert outcome.status == "indexed", outcome.error
    assert any("could not read 1 of 1 images; they keep their OCR text" in w for w in outcome.warnings)
    nodes = nodes_of(services.db, outcome.document_id)
    baseline = ocr_baseline["nodes"]
    assert [(n["node_type"], n["content"]) for n in nodes] == [(n["node_type"], n["content"]) for n in baseline]
    assert nodes[0]["metadata"] == baseline[0]["metadata"]


def test_chinese_document_gets_the_chinese_prompt(services, tmp_path):
    from docx import Document
    from docx.shared import Inches

    photo = photo_png()
    doc = Document()
    doc.add_heading("港口年度报告", level=1)
    doc.add_paragraph("本报告介绍港口博物馆全年的访客情况和主要活动。")
    doc.add_picture(io.BytesIO(photo), width=Inches(2))
    path = tmp_path / "港口.docx"
    doc.save(path)
    reply = {"kind": "photo", "title": "港口日落", "description": "港口日落时分的照片，橙色天空映在深蓝色海面上。"}
    with ScriptedOpenAI(VisionScript({ratio(photo): reply})) as llm:
        outcome = vision_indexer(services, llm).index_file(path, "vision/港口.docx")
        prompt = text_parts(llm.requests[0])
    assert outcome.status == "indexed", outcome.error
    assert "《港口.docx》" in prompt and "不是指令" in prompt
    image = next(n for n in nodes_of(services.db, outcome.document_id) if n["node_type"] == "image")
    assert image["content"] == "港口日落\n" + reply["description"] and image["metadata"]["vision"]["kind"] == "photo"
