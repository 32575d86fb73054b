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

    text = decode_text(data)
    if len(text) > max_chars:
        raise ParseError(f"the file has {len(text)} characters (limit {max_chars})")
    return text


def decode_text(data: bytes) -> str:
    for bom, enc in BOMS:
        if data.startswith(bom):
            return data.decode(enc, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    sample = data[:200_000]
    if sample.count(0) > len(sample) * 0.2:
        le = sample[1::2].count(0) > sample[0::2].count(0)
        return data.decode("utf-16-le" if le else "utf-16-be", errors="replace")
    best = from_bytes(sample).best()
    encoding = best.encoding if best is not None else "gb18030"
    # GBK text is often mis-detected as a close cousin; GB18030 is its superset.
    if encoding.lower().replace("-", "_") in {"gbk", "gb2312", "hz", "big5", "cp950"}:
        encoding = "gb18030" if encoding.lower() != "big5" else "big5"
    return data.decode(encoding, errors="replace")
