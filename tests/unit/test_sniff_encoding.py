import io
import zipfile

from dropqa.ingestion.encoding import decode_text
from dropqa.ingestion.sniff import detect_type

TEXT = "第一章 总则\n本办法适用于全体员工。"


def test_text_encodings_are_decoded():
    for enc in ("utf-8", "utf-8-sig", "utf-16", "gb18030", "gbk"):
        assert decode_text(TEXT.encode(enc)) == TEXT, enc


def test_utf16_without_bom():
    assert decode_text(TEXT.encode("utf-16-le")) == TEXT


def test_real_type_comes_from_bytes_not_extension():
    assert detect_type(b"%PDF-1.7\n...", "report.docx") == "pdf"
    assert detect_type(b"\x89PNG\r\n\x1a\n" + b"\0" * 20, "scan.pdf") == "image"
    assert detect_type("# 标题\n正文".encode(), "notes.md") == "md"
    assert detect_type(b"plain words", "notes.weird") == "txt"
    assert detect_type(b"\xd0\xcf\x11\xe0" + b"\0" * 100, "old.doc") == "ole"
    assert detect_type(bytes(range(256)) * 10, "blob.md") == "unknown"


def test_ooxml_kind_from_zip_parts():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr("word/document.xml", "<w:document/>")
    assert detect_type(buf.getvalue(), "renamed.txt") == "docx"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hello.txt", "hi")
    assert detect_type(buf.getvalue(), "x.zip") == "zip"
