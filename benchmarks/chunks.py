"""The baselines' view of a corpus: each document's parsed text, cut into 500-character chunks.

DropQA's own parsers produce the text (so every system reads the same words, OCR included):
the bench indexes a suite's corpus with a parse hook that keeps a plain-text rendering of each
parsed document — section titles and content in document order — before DropQA's
normalisation touches the tree. A document indexed again as ``STEM_vN`` replaces its text, as a
naive pipeline that re-indexes a replaced file would. The text is then split the way LangChain's
documentation splits text for RAG, including its recipe for languages without spaces between
words: ``RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50)`` with CJK separators.

The contextual baseline's chunks (:func:`contextual_chunks`) are the same chunks, each indexed
(BM25 tokens and embedding) with its document's title in front: the file name stem, and the
document's first line when that is a short heading that says more than the file name (a
Wikipedia title behind ``TRIAL_12.txt``, a report's full title). The prefix is only indexed:
a contextual chunk's ``text`` — what the evidence rule reads — is the plain chunk's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dropqa.ingestion.document import ParsedDocument
from dropqa.ingestion.parsers import ParseContext, get_parser

CHUNK_SIZE = 500
CHUNK_OVERLAP = 50
# LangChain's documented separators for text without word boundaries (Chinese, Japanese, Thai).
SEPARATORS = ["\n\n", "\n", " ", ".", ",", "\u200b", "\uff0c", "\u3001", "\uff0e", "\u3002", ""]
TITLE_LINE_MAX = 100  # a first line this short is a heading, longer ones are body text


@dataclass(frozen=True)
class Chunk:
    id: str
    document_name: str  # the document's source key (base file name)
    version: int        # the version whose text this is (the latest one)
    text: str
    prefix: str = ""    # indexed in front of the text (the contextual baseline's document title)

    @property
    def indexed(self) -> str:
        """What the baselines tokenise and embed: the text, after the prefix when there is one."""
        return f"{self.prefix}\n{self.text}" if self.prefix else self.text


def plain_text(doc: ParsedDocument) -> str:
    """Section titles and content blocks in document order, blank lines between them."""
    parts = []
    for node in doc.walk():
        text = (node.title or "") if node.is_section else node.content
        if text and text.strip():
            parts.append(text.strip())
    return "\n\n".join(parts)


class TextCapture:
    """An ``Indexer`` parse hook that also remembers each parsed document's plain text."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}     # file name as indexed (the source key's name) → text
        self.versions: dict[str, int] = {}  # how many times that name was parsed

    def __call__(self, file_type: str, data: bytes, ctx: ParseContext) -> ParsedDocument:
        parsed = get_parser(file_type).parse(data, ctx)
        self.texts[ctx.filename] = plain_text(parsed)
        self.versions[ctx.filename] = self.versions.get(ctx.filename, 0) + 1
        return parsed


def split(text: str) -> list[str]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP,
                                              separators=SEPARATORS)
    return [c for c in splitter.split_text(text) if c.strip()]


def chunk_corpus(texts: dict[str, str], versions: dict[str, int]) -> list[Chunk]:
    """All documents' chunks, in file-name order."""
    out: list[Chunk] = []
    for name in sorted(texts):
        for j, piece in enumerate(split(texts[name])):
            out.append(Chunk(id=f"{name}#{j}", document_name=name, version=versions.get(name, 1), text=piece))
    return out


def _loose(s: str) -> str:
    return re.sub(r"[\W_]+", " ", s).strip().casefold()


def document_title(name: str, text: str) -> str:
    """The file name stem (``_`` and ``-`` read as spaces), then `` — `` and the first line of the
    document when it is at most :data:`TITLE_LINE_MAX` characters and not already in the stem (the
    first line alone when it is the stem, as written in the document)."""
    stem = re.sub(r"[_-]+", " ", Path(name).stem).strip() or name
    first = next((line.strip().strip("#*").strip() for line in text.splitlines() if line.strip()), "")
    if not first or len(first) > TITLE_LINE_MAX:
        return stem
    if _loose(first) == _loose(stem):
        return first
    return stem if _loose(first) in _loose(stem) else f"{stem} — {first}"


def contextual_chunks(chunks: list[Chunk], texts: dict[str, str]) -> list[Chunk]:
    """The same chunks, each prefixed with its document's title.

    Ids ``ctx:…``: PGVector keeps every collection's rows in one table, keyed by id."""
    titles = {name: document_title(name, text) for name, text in texts.items()}
    return [Chunk(id=f"ctx:{c.id}", document_name=c.document_name, version=c.version, text=c.text,
                  prefix=titles.get(c.document_name) or document_title(c.document_name, ""))
            for c in chunks]
