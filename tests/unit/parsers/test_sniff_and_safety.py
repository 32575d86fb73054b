"""Type sniffing of damaged / BOM-less / encrypted files and the size guard, without a database."""

from __future__ import annotations

import os

import pytest

from dropqa.ingestion.encoding import decode_text, guess_utf16
from dropqa.ingestion.parsers import ParseError
from dropqa.ingestion.safety import check_file_size, explain_ole
from dropqa.ingestion.sniff import detect_type
from tests.support import documents as gen

ZH = "第一章 总则\n\n本制度适用于集团全体员工，自二〇二五年一月一日起施行。\n"
EN = "Plain English text, saved by an old editor.\n" * 4


@pytest.mark.parametrize("text", [ZH, EN])
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_text(text, codec):
    data = text.encode(codec)
    assert guess_utf16(data) == codec and detect_type(data, "notes.txt") == "txt" and decode_text(data) == text


def test_binary_is_not_mistaken_for_utf16():
    noise = os.urandom(8192)
    assert guess_utf16(noise) is None and detect_type(noise, "x.md") == "unknown"
    assert guess_utf16(ZH.encode("gbk")) is None and guess_utf16(ZH.encode()) is None
    junk = b"\x00\x01\x02\xff" * 100  # decodes to "Ā＂…" in UTF-16: printable, but not text
    assert guess_utf16(junk) is None and detect_type(junk, "junk.bin") == "unknown"


def test_damaged_office_files_keep_their_type_so_the_parser_says_damaged():
    docx = gen.docx_bytes([("p", "text " * 200)])
    assert detect_type(docx[: len(docx) // 2], "cut.bin") == "docx"  # the local headers name word/
    assert detect_type(b"PK\x03\x04" + bytes(64), "garbage.pptx") == "pptx"  # else the extension
    assert detect_type(b"PK\x03\x04" + bytes(64), "garbage.zip") == "zip"


def test_ole_files_are_explained():
    pytest.importorskip("msoffcrypto")
    locked = gen.encrypt_ooxml(gen.xlsx_bytes({"S": [["a", 1]]}))
    assert detect_type(locked, "book.xlsx") == "ole"
    assert explain_ole(locked, "book.xlsx").startswith("the Excel file is password-protected")
    legacy = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600)
    assert "legacy binary Word file with a .docx name" in explain_ole(legacy, "old.docx")
    assert "legacy Office file (.doc/.xls/.ppt)" in explain_ole(legacy, "old.doc")


def test_size_limit_message():
    check_file_size(100 * 2**20, 100 * 2**20)
    with pytest.raises(ParseError, match=r"too large: 191 MB; the limit is 100 MB"):
        check_file_size(200_000_000, 100 * 2**20)
