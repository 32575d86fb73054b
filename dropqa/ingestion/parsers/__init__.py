"""Format parsers, one module per format, behind the :class:`~.base.Parser` protocol.

Modules are imported lazily so a missing optional dependency only breaks its own
format, never the others.
"""

from __future__ import annotations

import importlib

from dropqa.ingestion.parsers.base import ParseContext, ParseError, Parser, UnsupportedFormat

_REGISTRY: dict[str, str] = {
    "md": "dropqa.ingestion.parsers.markdown:MarkdownParser",
    "txt": "dropqa.ingestion.parsers.text:TextParser",
    "csv": "dropqa.ingestion.parsers.csv:CsvParser",
    "docx": "dropqa.ingestion.parsers.docx:DocxParser",
    "pptx": "dropqa.ingestion.parsers.pptx:PptxParser",
    "xlsx": "dropqa.ingestion.parsers.xlsx:XlsxParser",
    "pdf": "dropqa.ingestion.parsers.pdf:PdfParser",
    "image": "dropqa.ingestion.parsers.image:ImageParser",
}

_EXPLAIN = {
    "ole": "legacy Office file (.doc/.xls/.ppt) or a password-protected Office file; "
    "save it as .docx/.xlsx/.pptx (without a password) and add it again",
    "zip": "a ZIP archive that is not a Word, PowerPoint or Excel file",
    "unknown": "binary file of an unknown type",
}


def parser_modules() -> list[str]:
    """Every parser module (the parse child process's server imports them once, up front)."""
    return ["dropqa.ingestion.parsers", *sorted({t.partition(":")[0] for t in _REGISTRY.values()})]


def supported_types() -> list[str]:
    return sorted(_REGISTRY)


def get_parser(file_type: str) -> Parser:
    target = _REGISTRY.get(file_type)
    if target is None:
        raise UnsupportedFormat(f"unsupported file type: {_EXPLAIN.get(file_type, file_type)}")
    module_name, _, cls_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnsupportedFormat(f"the {file_type} parser is not available: {exc}") from exc
    return getattr(module, cls_name)()


__all__ = ["ParseContext", "ParseError", "Parser", "UnsupportedFormat", "get_parser", "supported_types"]
