"""Guards that run before a parser touches untrusted bytes (zip bombs, huge inputs, encrypted files)."""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath

from dropqa.ingestion.parsers.base import ParseContext, ParseError


def check_zip_container(data: bytes, ctx: ParseContext) -> None:
    """Refuse OOXML (zip) files whose declared uncompressed size or ratio is absurd.

    Reads only the central directory, so it costs nothing on honest files. A file
    that lies about its sizes is still caught by the parsers' own read limits and
    by the per-file memory/time limits of the worker process.
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ParseError(f"the file is damaged (not a valid ZIP/Office container): {exc}") from exc
    with zf:
        infos = zf.infolist()
        if len(infos) > 100_000:
            raise ParseError(f"refused: the container holds {len(infos)} parts (limit 100000)")
        total = sum(i.file_size for i in infos)
        compressed = max(1, sum(i.compress_size for i in infos))
        if total > ctx.max_uncompressed_bytes:
            raise ParseError(
                f"refused: the container would expand to {total / 1e6:.0f} MB "
                f"(limit {ctx.max_uncompressed_bytes / 1e6:.0f} MB) — possible zip bomb"
            )
        if total > 10_000_000 and total / compressed > ctx.max_compression_ratio:
            raise ParseError(
                f"refused: compression ratio {total / compressed:.0f}:1 exceeds "
                f"{ctx.max_compression_ratio:.0f}:1 — possible zip bomb"
            )
        if any(i.flag_bits & 0x1 for i in infos):
            raise ParseError("the file is password-protected; remove the password and add it again")


def _megabytes(n: int) -> str:
    return f"{n / 2**20:.0f} MB" if n >= 2**20 else f"{n / 1024:.0f} KB"


def check_file_size(size: int, limit: int) -> None:
    """Refuse a file over ``ingestion.max_file_bytes`` from its size alone (nothing is read)."""
    if size > limit:
        raise ParseError(f"the file is too large: {_megabytes(size)}; the limit is {_megabytes(limit)} "
                         "(ingestion.max_file_bytes)")


_LEGACY = {".doc": "Word", ".xls": "Excel", ".ppt": "PowerPoint", ".docx": "Word", ".xlsx": "Excel",
           ".pptx": "PowerPoint", ".docm": "Word", ".xlsm": "Excel", ".pptm": "PowerPoint"}


def explain_ole(data: bytes, filename: str) -> str:
    """Why an OLE compound file (the sniffed type ``ole``) cannot be indexed: an encrypted Office
    file (OOXML inside an ``EncryptedPackage`` stream) or a legacy binary .doc/.xls/.ppt file."""
    ext = PurePath(filename).suffix.lower()
    label = _LEGACY.get(ext, "Office")
    if "EncryptedPackage".encode("utf-16-le") in data or "EncryptionInfo".encode("utf-16-le") in data:
        return f"the {label} file is password-protected (encrypted); remove the password and add it again"
    if ext in (".docx", ".xlsx", ".pptx"):
        return (f"this is a legacy binary {label} file with a {ext} name; "
                f"save it as a real {ext} file and add it again")
    return ("legacy Office file (.doc/.xls/.ppt) is not supported; save it as .docx/.xlsx/.pptx and add it again")
