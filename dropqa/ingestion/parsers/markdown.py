"""Markdown → node tree with markdown-it-py (CommonMark + GFM tables)."""

from __future__ import annotations

from pathlib import PurePath

from markdown_it import MarkdownIt
from markdown_it.token import Token

from dropqa.ingestion.builder import TreeBuilder
from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph, table_node
from dropqa.ingestion.encoding import decode_limited
from dropqa.ingestion.parsers.base import ParseContext

_md = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")


class MarkdownParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        return parse_markdown_text(decode_limited(data, ctx.max_chars), ctx.filename)


def parse_markdown_text(text: str, filename: str) -> ParsedDocument:
    tokens = _md.parse(_strip_front_matter(text))
    builder = TreeBuilder()
    i = 0
    while i < len(tokens):
        i = _consume(tokens, i, builder)
    return ParsedDocument(title=PurePath(filename).stem, file_type="md", children=builder.root)


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1 and end < 4000:
            return text[end + 4 :].lstrip("\n")
    return text


def _consume(tokens: list[Token], i: int, builder: TreeBuilder) -> int:
    tok = tokens[i]
    if tok.type == "heading_open":
        level = int(tok.tag[1:])
        title = tokens[i + 1].content.strip()
        builder.heading(level, title or tok.markup)
        return i + 3
    if tok.type == "paragraph_open":
        content = tokens[i + 1].content.strip()
        if content:
            builder.add(paragraph(content))
        return i + 3
    if tok.type in ("bullet_list_open", "ordered_list_open"):
        end = _matching_close(tokens, i)
        items = _list_items(tokens[i:end + 1])
        if items:
            builder.add(ParsedNode("list", content="\n".join(items)))
        return end + 1
    if tok.type in ("fence", "code_block"):
        if tok.content.strip():
            builder.add(ParsedNode("code", content=tok.content.rstrip("\n"), metadata={"language": tok.info.strip()}))
        return i + 1
    if tok.type == "table_open":
        end = _matching_close(tokens, i)
        header, rows = _table(tokens[i:end + 1])
        builder.add(table_node(header, rows))
        return end + 1
    if tok.type == "blockquote_open":
        end = _matching_close(tokens, i)
        inner = [t.content.strip() for t in tokens[i:end] if t.type == "inline" and t.content.strip()]
        if inner:
            builder.add(paragraph("\n".join(inner), quote=True))
        return end + 1
    if tok.type == "html_block":
        text = _strip_tags(tok.content).strip()
        if text:
            builder.add(paragraph(text))
        return i + 1
    return i + 1


def _matching_close(tokens: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _list_items(tokens: list[Token]) -> list[str]:
    items: list[str] = []
    depth = 0
    ordinal: list[int] = []
    for tok in tokens:
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
            ordinal.append(int(tok.attrs.get("start", 1) or 1) if tok.type == "ordered_list_open" else 0)
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
            ordinal.pop()
        elif tok.type == "inline" and tok.content.strip():
            indent = "  " * (depth - 1)
            if ordinal and ordinal[-1]:
                marker = f"{ordinal[-1]}."
                ordinal[-1] += 1
            else:
                marker = "-"
            items.append(f"{indent}{marker} {tok.content.strip()}")
    return items


def _table(tokens: list[Token]) -> tuple[list[str], list[list[str]]]:
    header: list[str] = []
    rows: list[list[str]] = []
    current: list[str] | None = None
    in_head = False
    for tok in tokens:
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            current = []
        elif tok.type == "tr_close" and current is not None:
            if in_head:
                header = current
            else:
                rows.append(current)
            current = None
        elif tok.type == "inline" and current is not None:
            current.append(tok.content.strip())
    return header, rows


def _strip_tags(html: str) -> str:
    import re

    return re.sub(r"<[^>]+>", " ", html)
