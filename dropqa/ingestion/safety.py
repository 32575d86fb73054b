"""Guards that run before a parser touches untrusted bytes (zip bombs, huge inputs)."""

from __future__ import annotations

import io
import zipfile

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
