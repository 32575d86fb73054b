"""Awkward input that must be *indexed*, through the real indexer service (worker + parse child):
odd file names, other text encodings, endless lines, 20,000 headings, a sheet of thousands of rows
(10,000, cut as 100,000 are at the default limits). Each case checks what was stored and that the rest
of the index is intact. Refusals: test_bad_input.py."""

from __future__ import annotations

import io
import zipfile

import pytest

from dropqa.ingestion.worker import Worker
from dropqa.store import nodes as node_store
from dropqa.store.search import fulltext, semantic
from dropqa.text.segment import query_terms
from tests.support import documents as gen
from tests.support.bad_input import assert_indexed, assert_intact, build_baseline, run
from tests.support.scopes import DEFAULT

pytestmark = [pytest.mark.integration, pytest.mark.heavy(55)]


@pytest.fixture(scope="module")
def worker(services) -> Worker:
    return Worker(services, "odd-input")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return tmp_path_factory.mktemp("odd")


@pytest.fixture(scope="module")
def baseline(services, worker, tmp_path_factory) -> dict:
    return build_baseline(services, worker, tmp_path_factory.mktemp("baseline"))


def find(services, text: str, document: str) -> list[dict]:
    hits = fulltext(services.db, query_terms(text), DEFAULT, 10)
    return [h for h in hits if h["document_name"] == document]


def one(services, sql: str, *args):
    with services.db.connection() as conn:
        return conn.execute(sql, args).fetchone()


def test_file_names_with_spaces_emoji_and_chinese(services, worker, baseline, files):
    sub = files / "季度 报告 🚀"
    sub.mkdir()
    path = sub / "2025 年 Q1 总结 🚀 final (v2).md"
    path.write_text("# 总结\n\n## 销售\n\n一季度华东区销售额同比增长 18%。\n", encoding="utf-8")
    key = "季度 报告 🚀/2025 年 Q1 总结 🚀 final (v2).md"
    row = run(worker, path, key)
    assert_indexed(row)
    doc = one(services, "SELECT source_key, filename FROM documents WHERE id = %s", row["document_id"])
    assert (doc["source_key"], doc["filename"]) == (key, "2025 年 Q1 总结 🚀 final (v2).md")
    hit = find(services, "华东区销售额", doc["filename"])[0]
    assert hit["breadcrumb"].startswith("2025 年 Q1 总结 🚀 final (v2).md > 总结 > 销售")
    assert run(worker, path, key)["outcome"] == "unchanged"  # same bytes, same odd key
    assert_intact(services, baseline)


@pytest.mark.parametrize(("encoding", "bom"), [("utf-16-le", True), ("utf-16-be", False), ("gbk", False),
                                               ("gb18030", False)])
def test_text_in_other_encodings_is_decoded(services, worker, baseline, files, encoding, bom):
    text = ("第一章 总则\n\n本制度适用于集团全体员工，自二〇二五年一月一日起施行。\n\n"
            "第二章 考勤\n\n员工每月可申请两次弹性工作日，需提前一天在系统中登记。\n")
    if encoding == "gb18030":
        text += "\n附：生僻字𠀀与欧元符号€均须正确保存。\n"  # outside GBK: only GB18030 encodes them
    data = text.encode(encoding)
    if bom:
        data = "\ufeff".encode(encoding) + data
    path = files / f"制度-{encoding}.txt"
    path.write_bytes(data)
    row = run(worker, path)
    assert_indexed(row)
    hits = find(services, "弹性工作日", path.name)
    assert hits and "员工每月可申请两次弹性工作日" in hits[0]["content"]
    assert hits[0]["breadcrumb"].endswith("第二章 考勤")
    if encoding == "gb18030":
        assert find(services, "欧元符号", path.name)[0]["content"].find("𠀀与欧元符号€") != -1
    assert_intact(services, baseline)


def test_a_single_2_mb_line_without_newline(services, worker, baseline, files):
    sentence = "the archive keeps every invoice for seven years and the auditors sample them each quarter "
    body = (sentence * (2_000_000 // len(sentence) + 1))[:2_000_000]
    marker = "ZEBRA-4711 is the retention exception for payroll"
    body = body[:1_000_000] + marker + body[1_000_000 + len(marker):]
    path = files / "one-line.txt"
    path.write_bytes(body.encode())
    assert b"\n" not in path.read_bytes() and path.stat().st_size == 2_000_000
    row = run(worker, path)
    assert_indexed(row)
    chunks = one(services, "SELECT count(*) AS n, max(length(content)) AS longest FROM nodes WHERE document_id = %s "
                           "AND node_type = 'paragraph'", row["document_id"])
    assert chunks["n"] > 2_000 and chunks["longest"] <= 800  # cut into chunks, none absurdly long
    assert find(services, "ZEBRA-4711", path.name)  # the middle of the line is searchable
    assert_intact(services, baseline)


def test_markdown_with_20000_headings(services, worker, baseline, files):
    lines = []
    for i in range(20_000):
        lines.append(f"{'#' * (1 + i % 4)} Heading {i}\n")
        if i % 2_000 == 1_999:
            lines.append(f"Under heading {i} the quokka quota is {i} units.\n")
    path = files / "headings.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    row = run(worker, path)
    assert_indexed(row)
    stats = one(services, "SELECT count(*) FILTER (WHERE node_type = 'section') AS sections, max(depth) AS depth "
                          "FROM nodes WHERE document_id = %s", row["document_id"])
    assert stats["sections"] == 20_000 and stats["depth"] == 5  # document → H1 → H2 → H3 → H4 → paragraph
    hit = find(services, "quokka quota 19999", path.name)[0]
    assert hit["breadcrumb"] == "headings.md > Heading 19996 > Heading 19997 > Heading 19998 > Heading 19999"
    assert_intact(services, baseline)


# The sheet at a tenth of 100,000 rows, with the three sheet limits at a tenth of their defaults: cut by the
# same rules as 100,000 rows are at the defaults (streamed, not loaded; a range ends at its character budget,
# ~10 rows of ~32 characters here, ~100 there, before its row limit), into about as many ranges (898 here,
# 941 there) at a tenth of the parsing, term indexing and writing — most of this module's time at full size.
SHEET_ROWS = 10_000
SHEET_LIMITS = {"rows_per_chunk": 20, "chunk_max_chars": 400, "xlsx_read_only_bytes": 1_000_000}


def test_sheet_of_10000_rows_is_split_by_row_ranges(services, worker, baseline, files, monkeypatch):
    for name, value in SHEET_LIMITS.items():
        monkeypatch.setattr(services.settings.ingestion, name, value)
    rows = ([i, f"SKU-{i:06d}", i % 97] for i in range(SHEET_ROWS))
    path = files / "inventory.xlsx"
    path.write_bytes(gen.xlsx_bytes({"库存": [["编号", "物料", "库位"], *rows]}))
    with zipfile.ZipFile(io.BytesIO(path.read_bytes())) as book:  # streamed, as 100,000 rows are
        assert sum(i.file_size for i in book.infolist() if i.filename.startswith("xl/worksheets/")) > \
            SHEET_LIMITS["xlsx_read_only_bytes"]
    row = run(worker, path)
    assert_indexed(row)
    tables = one(services, "SELECT count(*) AS n, count(e.node_id) AS embedded, max(length(n.content)) AS longest, "
                           "max(jsonb_array_length(n.metadata->'table'->'rows')) AS most_rows FROM nodes n "
                           "LEFT JOIN embeddings e ON e.node_id = n.id WHERE n.document_id = %s "
                           "AND n.node_type = 'table'", row["document_id"])
    # row ranges of at most 20 rows / ~400 characters (200 / ~4,000 at the defaults)
    assert tables["n"] >= 500 and tables["most_rows"] <= 20 and tables["longest"] <= 2 * 400
    assert tables["embedded"] == services.settings.ingestion.embed_table_ranges  # the rest: full-text only
    [hit] = [h for h in fulltext(services.db, ["007777"], DEFAULT, 5) if h["document_name"] == path.name]
    assert hit["content"].splitlines()[:2] == ["库存", "编号 | 物料 | 库位"]  # caption, then the header again
    assert "物料: SKU-007777" in hit["content"]
    first, last = hit["metadata"]["row_range"]
    assert first <= 7_779 <= last  # spreadsheet row numbers: header in row 1
    vector = services.embedder.embed_query("库存 物料 库位").tolist()
    near = semantic(services.db, vector, services.embedder.name, services.embedder.dimensions, DEFAULT, 5)
    assert any(h["document_name"] == path.name for h in near)
    assert node_store.outline(services.db, DEFAULT, row["document_id"], 1)[0]["node_type"] == "document"
    assert_intact(services, baseline)
