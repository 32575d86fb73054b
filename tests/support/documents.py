"""Generate real documents of every format in memory (python-docx, python-pptx, openpyxl, PyMuPDF,
Pillow), plus the malformed ones the bad-input tests need. Used by tests and benchmarks/ingestion.py."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterable, Sequence


def docx_bytes(blocks: Sequence[tuple[str, str]]) -> bytes:
    """``blocks``: ``(kind, text)`` with kind ``h1``/``h2``/``h3``, ``p``, ``break`` (page break) or
    ``table`` (text = rows separated by ``\\n``, cells by ``|``)."""
    import docx
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    for kind, text in blocks:
        if kind.startswith("h"):
            document.add_heading(text, level=int(kind[1:]))
        elif kind == "break":
            document.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
        elif kind == "table":
            rows = [r.split("|") for r in text.split("\n")]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for i, row in enumerate(rows):
                for j, cell in enumerate(row):
                    table.cell(i, j).text = cell
        else:
            document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def pptx_bytes(slides: Sequence[tuple[str, Sequence[str]]]) -> bytes:
    from pptx import Presentation

    deck = Presentation()
    for title, bullets in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = bullets[0] if bullets else ""
        for line in bullets[1:]:
            body.add_paragraph().text = line
    buf = io.BytesIO()
    deck.save(buf)
    return buf.getvalue()


def xlsx_bytes(sheets: dict[str, Iterable[Sequence[object]]]) -> bytes:
    """Streams rows (write-only workbook), so a 100,000-row sheet costs little memory."""
    import openpyxl

    book = openpyxl.Workbook(write_only=True)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def pdf_bytes(pages: Sequence[Sequence[str]], *, heading_size: float = 18, body_size: float = 11,
              **save: object) -> bytes:
    """One list of lines per page; a line starting with ``# `` is drawn large (a heading).
    ``save`` goes to ``Document.tobytes`` (e.g. ``encryption=…, user_pw=…``)."""
    import pymupdf

    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page()
        y = 72.0
        for line in lines:
            heading = line.startswith("# ")
            size = heading_size if heading else body_size
            text = line[2:] if heading else line
            font = "helv" if text.isascii() else "china-s"  # the CJK font only where needed: it is slow
            page.insert_text((72, y), text, fontsize=size, fontname=font)
            y += size * 1.8
    data = doc.tobytes(**save)
    doc.close()
    return data


def png_bytes(width: int, height: int, color: str = "white") -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width``×``height`` pixels, with (almost) no pixel data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b"")


def with_extra_part(ooxml: bytes, name: str, size: int) -> bytes:
    """A copy of an OOXML file with one more part of ``size`` zero bytes (compresses ~1000:1)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(ooxml)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item.filename))
        with dst.open(name, "w", force_zip64=True) as part:
            block = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                part.write(block)
    return out.getvalue()


def understate_sizes(ooxml: bytes, part: str) -> bytes:
    """Rewrite the central directory so ``part`` claims to be 10 bytes when uncompressed (a zip
    that lies about its sizes to slip past a size check)."""
    data = bytearray(ooxml)
    encoded = part.encode()
    at = data.find(b"PK\x01\x02" + b"", 0)
    while at != -1:
        name_len = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46 : at + 46 + name_len]) == encoded:
            struct.pack_into("<I", data, at + 24, 10)
            return bytes(data)
        at = data.find(b"PK\x01\x02", at + 4)
    raise ValueError(f"no central directory entry for {part}")


def encrypt_ooxml(data: bytes, password: str = "secret") -> bytes:
    """A real password-protected Office file (ECMA-376 agile encryption) via msoffcrypto-tool."""
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(data)).encrypt(password, out)
    return out.getvalue()
