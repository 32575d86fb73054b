"""Bad input that must be refused, through the real indexer service: each file is a job run by a
worker (parsing in its child process, with its limits). Every case checks the job's message and that
the rest of the index is intact — the baseline documents are still current, unchanged and found by
search, and the refused file left no row anywhere. Files that must be indexed: test_bad_input_accepted.py."""

from __future__ import annotations

import pytest

from dropqa.ingestion.worker import Worker
from dropqa.store import jobs
from dropqa.store.search import fulltext
from tests.support import documents as gen
from tests.support.bad_input import assert_indexed, assert_intact, build_baseline, refuse, run
from tests.support.scopes import DEFAULT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def worker(services) -> Worker:
    return Worker(services, "bad-input")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return tmp_path_factory.mktemp("bad")


@pytest.fixture(scope="module")
def long_pdf(files):
    path = files / "2000-pages.pdf"
    path.write_bytes(gen.pdf_bytes([[f"Page {i + 1}"] for i in range(2000)]))
    return path


@pytest.fixture(scope="module")
def baseline(services, worker, tmp_path_factory) -> dict:
    return build_baseline(services, worker, tmp_path_factory.mktemp("baseline"))


# --- damaged files of each format -----------------------------------------------------------------

def _damaged_cases() -> list[tuple[str, bytes, str]]:
    docx = gen.docx_bytes([("h1", "Title"), ("p", "body text " * 50)])
    pptx = gen.pptx_bytes([("Slide", ["point one", "point two"])])
    xlsx = gen.xlsx_bytes({"Sheet": [["a", "b"], [1, 2]]})
    pdf = gen.pdf_bytes([["# Heading", "body line"]])
    png = gen.png_bytes(200, 100)
    return [
        ("truncated.docx", docx[: len(docx) // 2], "damaged"),
        ("truncated.pptx", pptx[: len(pptx) // 2], "damaged"),
        ("truncated.xlsx", xlsx[: len(xlsx) // 2], "damaged"),
        ("garbage.docx", b"PK\x03\x04" + bytes(range(256)) * 8, "damaged"),
        ("truncated.pdf", pdf[: len(pdf) // 2], "PDF"),
        ("garbage.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 8, "damaged"),
        ("truncated.png", png[: len(png) // 2], "damaged"),
        ("binary.md", bytes(range(256)) * 40, "binary file of an unknown type"),
        ("binary.csv", b"\x00\x01\x02\x03\xff\xfe" * 700 + b"\x7f" * 100, "unsupported file type"),
    ]


@pytest.mark.parametrize(("name", "data", "needle"), _damaged_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_damaged_file_fails_alone(services, worker, baseline, files, name, data, needle):
    path = files / name
    path.write_bytes(data)
    refuse(services, baseline, worker, path, needle)


def test_wrong_extension_is_parsed_by_its_real_type(services, worker, baseline, files):
    docx_named_pdf = files / "really-a-word-file.pdf"
    docx_named_pdf.write_bytes(gen.docx_bytes([("h1", "Plan"), ("p", "The zebra migration budget is 7 million.")]))
    pdf_named_txt = files / "really-a-pdf.txt"
    pdf_named_txt.write_bytes(gen.pdf_bytes([["# Appendix", "The walrus index rose by 12 points."]]))
    for path, kind, fact in ((docx_named_pdf, "docx", "zebra"), (pdf_named_txt, "pdf", "walrus")):
        row = run(worker, path)
        assert_indexed(row)
        with services.db.connection() as conn:
            doc = conn.execute("SELECT file_type FROM documents WHERE id = %s", (row["document_id"],)).fetchone()
        assert doc["file_type"] == kind
        assert any(fact in h["content"] for h in fulltext(services.db, [fact], DEFAULT, 5))
    assert_intact(services, baseline)


# --- password-protected files ------------------------------------------------------------------------

def test_encrypted_pdf_and_office_files_say_password_protected(services, worker, baseline, files):
    pytest.importorskip("msoffcrypto")
    cases = {
        "locked.pdf": gen.pdf_bytes([["secret page"]], encryption=4, user_pw="u", owner_pw="o"),  # AES-256
        "locked.docx": gen.encrypt_ooxml(gen.docx_bytes([("p", "secret paragraph")])),
        "locked.xlsx": gen.encrypt_ooxml(gen.xlsx_bytes({"S": [["secret", 1]]})),
    }
    for name, data in cases.items():
        (files / name).write_bytes(data)
        refuse(services, baseline, worker, files / name, "password-protected", "remove the password")
    job = jobs.list_jobs(services.db, DEFAULT, source_key="locked.docx")[0]
    assert "Word file is password-protected" in job["error"]


# --- bombs and sizes ---------------------------------------------------------------------------------------

def test_zip_bombs_in_ooxml_are_refused(services, worker, baseline, files, settings):
    docx = gen.docx_bytes([("h1", "Bomb"), ("p", "innocent text")])
    ratio_bomb = files / "ratio-bomb.docx"  # 40 MB of zeros in 40 KB: ratio ~1000:1
    ratio_bomb.write_bytes(gen.with_extra_part(docx, "word/media/filler.bin", 40 << 20))
    refuse(services, baseline, worker, ratio_bomb, "compression ratio", "zip bomb")

    big = files / "size-bomb.docx"  # under the ratio limit's floor, over a (lowered) expansion cap
    big.write_bytes(gen.with_extra_part(docx, "word/media/filler.bin", 8 << 20))
    limit = settings.ingestion.max_uncompressed_bytes
    settings.ingestion.max_uncompressed_bytes = 4 << 20
    try:
        refuse(services, baseline, worker, big, "would expand to", "zip bomb")
    finally:
        settings.ingestion.max_uncompressed_bytes = limit

    liar = files / "lying-sizes.docx"  # claims 10 bytes for its main part: zipfile stops there, CRC fails
    liar.write_bytes(gen.understate_sizes(docx, "word/document.xml"))
    refuse(services, baseline, worker, liar, "damaged")


def test_file_over_the_size_limit_is_refused_unread(services, worker, baseline, files, settings):
    huge = files / "huge.pdf"
    with huge.open("wb") as f:  # a sparse 200 MB file: the size check must refuse it before reading
        f.write(b"%PDF-1.7\n")
        f.truncate(200_000_000)
    assert settings.ingestion.max_file_bytes < 200_000_000
    refuse(services, baseline, worker, huge, "the file is too large: 191 MB; the limit is 100 MB")


def test_image_of_40000_by_40000_pixels_is_refused(services, worker, baseline, files):
    bomb = files / "bomb.png"
    bomb.write_bytes(gen.png_header_only(40_000, 40_000))
    refuse(services, baseline, worker, bomb, "1,600,000,000 pixels", "the limit is 60,000,000 pixels")


def test_pdf_over_the_page_limit_is_refused(services, worker, baseline, long_pdf, settings):
    """2,000 pages parse in about a second (tests/unit/parsers/test_pdf_limits.py); the page limit
    (5,000 by default) is lowered here so the refusal path runs on the same file."""
    before = settings.ingestion.max_pages
    settings.ingestion.max_pages = 1000
    try:
        refuse(services, baseline, worker, long_pdf, "the PDF has 2000 pages; the limit is 1000 pages")
    finally:
        settings.ingestion.max_pages = before


def test_parser_that_hangs_or_eats_memory_fails_and_the_worker_goes_on(services, worker, baseline, files, long_pdf,
                                                                       settings):
    slow = long_pdf  # 2,000 pages: ~1 s of parsing, over a 0.2 s limit
    hungry = files / "hungry.png"  # 160 KB on disk, 147 MB decoded: over a 64 MB memory limit
    hungry.write_bytes(gen.png_bytes(7000, 7000))
    ok = files / "fine.md"
    ok.write_text("# Fine\n\nThe ocelot rota changes every Monday.\n", encoding="utf-8")
    limits = settings.ingestion
    saved = (limits.parse_timeout_s, limits.parse_memory_limit_mb)
    worker._indexer = None  # the parse function is built from the limits
    limits.parse_timeout_s, limits.parse_memory_limit_mb = 0.2, 64
    try:
        refuse(services, baseline, worker, slow, "parsing took longer than 0.2 s and was stopped")
        limits.parse_timeout_s = 60
        worker._indexer = None
        refuse(services, baseline, worker, hungry, "ran out of memory while parsing (limit 64 MB)")
        assert_indexed(run(worker, ok))  # the same worker carries on
    finally:
        limits.parse_timeout_s, limits.parse_memory_limit_mb = saved
        worker._indexer = None
    assert_intact(services, baseline)


def test_empty_and_blank_files(services, worker, baseline, files):
    for name, data in (("empty.md", b""), ("blank.txt", b" \n\t\r\n  \n"), ("empty.docx", b"")):
        (files / name).write_bytes(data)
        refuse(services, baseline, worker, files / name, "the file is empty")
