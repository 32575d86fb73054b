"""The small protocol every format parser implements, and the errors it may raise."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Protocol, runtime_checkable

from dropqa.config import IngestionSettings
from dropqa.ingestion.document import ParsedDocument


class ParseError(Exception):
    """The file cannot be parsed; the message is shown to the user on the job."""


class UnsupportedFormat(ParseError):
    """No parser handles this file type."""


_DEFAULTS = IngestionSettings()  # the one place the parser limits' default values are written


@dataclass
class ParseContext:
    """Limits and helpers a parser may use: :meth:`from_settings` fills them from ``Settings.ingestion``
    (the defaults are that group's defaults, for parsers called directly)."""

    filename: str
    max_chars: int = _DEFAULTS.max_chars
    ocr_enabled: bool = _DEFAULTS.ocr_enabled
    ocr_min_text_chars: int = _DEFAULTS.ocr_min_text_chars
    max_pages: int = _DEFAULTS.max_pages
    max_image_pixels: int = _DEFAULTS.max_image_pixels
    max_uncompressed_bytes: int = _DEFAULTS.max_uncompressed_bytes
    max_compression_ratio: float = _DEFAULTS.max_compression_ratio
    rows_per_chunk: int = _DEFAULTS.rows_per_chunk
    chunk_max_chars: int = _DEFAULTS.chunk_max_chars
    csv_max_field_chars: int = _DEFAULTS.csv_max_field_chars
    xlsx_read_only_bytes: int = _DEFAULTS.xlsx_read_only_bytes
    extra: dict[str, object] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, filename: str, ingestion: IngestionSettings) -> ParseContext:
        return cls(filename=filename, **{f.name: getattr(ingestion, f.name) for f in fields(cls)
                                         if f.name not in ("filename", "extra")})


@runtime_checkable
class Parser(Protocol):
    """Turns the bytes of one file into a :class:`ParsedDocument`.

    The registry (``parsers/__init__.py``) maps sniffed types to parsers. ``parse`` must not touch the
    database or the network and must raise :class:`ParseError` with a message a
    user understands when the file is broken.
    """

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument: ...
