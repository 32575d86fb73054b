"""Decode text files in whatever encoding people save them (UTF-8, UTF-16, GBK/GB18030, …)."""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes

BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_limited(data: bytes, max_chars: int) -> str:
    """Decode a text file, refusing one longer than ``max_chars`` characters."""
    from dropqa.ingestion.parsers.base import ParseError

    if len(data) > 4 * max_chars:  # no encoding packs more than 4 bytes into one character
        raise ParseError(f"the file has more than {max_chars} characters (limit {max_chars})")
    text = decode_text(data)
    if len(text) > max_chars:
        raise ParseError(f"the file has {len(text)} characters (limit {max_chars})")
    return text


def decode_text(data: bytes) -> str:
    for bom, enc in BOMS:
        if data.startswith(bom):
            return data.decode(enc, errors="replace")
    sample = data[:200_000]
    utf16 = guess_utf16(sample)
    if utf16 and b"\x00" in sample[:16_384]:  # NULs are valid UTF-8: decide before trying it
        return data.decode(utf16, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if utf16:
        return data.decode(utf16, errors="replace")
    best = from_bytes(sample).best()
    encoding = best.encoding if best is not None else "gb18030"
    # GBK text is often mis-detected as a close cousin; GB18030 is its superset.
    if encoding.lower().replace("-", "_") in {"gbk", "gb2312", "hz", "big5", "cp950"}:
        encoding = "gb18030" if encoding.lower() != "big5" else "big5"
    return data.decode(encoding, errors="replace")


def guess_utf16(sample: bytes) -> str | None:
    """``utf-16-le`` / ``utf-16-be`` when BOM-less ``sample`` reads as UTF-16 text, else None.

    ASCII-heavy UTF-16 shows as NULs on one side; Chinese UTF-16 has almost no NULs, so both byte
    orders are decoded strictly and accepted only when nearly every character is ordinary text
    (CJK, letters, digits, punctuation, whitespace). Random binary fails the strict decode
    (unpaired surrogates) or the text test.
    """
    sample = sample[: len(sample) - len(sample) % 2][:16_384]
    if len(sample) < 4:
        return None
    best, best_share = None, 0.0
    for codec in ("utf-16-le", "utf-16-be"):
        try:
            text = sample.decode(codec)
        except UnicodeDecodeError:
            continue
        share = sum(1 for ch in text if _ordinary(ch)) / len(text)
        if share > best_share:
            best, best_share = codec, share
    return best if best_share >= 0.9 else None


def _ordinary(ch: str) -> bool:
    """ASCII, CJK ideographs and CJK / general / full-width punctuation: what UTF-16 documents are
    made of. Accented Latin letters are left out on purpose: junk bytes such as ``00 01 02 ff``
    decode to ``Ā＂`` pairs, and a few accents in a real text do not move the share much."""
    o = ord(ch)
    return (32 <= o < 127 or ch in "\n\r\t" or 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF
            or 0x3000 <= o <= 0x303F or 0x2000 <= o <= 0x206F or 0xFF00 <= o <= 0xFFEF)
