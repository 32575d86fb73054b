"""The small protocol every format parser implements, and the errors it may raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from dropqa.ingestion.document import ParsedDocument


class ParseError(Exception):
    """The file cannot be parsed; the message is shown to the user on the job."""


class UnsupportedFormat(ParseError):
    """No parser handles this file type."""


@dataclass
class ParseContext:
    """Limits and helpers a parser may use. Filled from Settings by the pipeline."""

    filename: str
    max_chars: int = 20_000_000
    ocr_enabled: bool = True
    ocr_min_text_chars: int = 30
    max_pages: int = 5000
    max_image_pixels: int = 60_000_000
    max_uncompressed_bytes: int = 1_000_000_000
    max_compression_ratio: float = 200.0
    extra: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class Parser(Protocol):
    """Turns the bytes of one file into a :class:`ParsedDocument`.

    ``file_types`` lists the canonical types it handles (``"md"``, ``"docx"`` …);
    the registry maps sniffed types to parsers. ``parse`` must not touch the
    database or the network and must raise :class:`ParseError` with a message a
    user understands when the file is broken.
    """

    file_types: tuple[str, ...]

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument: ...
