"""Markdown → node tree with markdown-it-py (CommonMark + GFM tables)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from markdown_it import MarkdownIt
from markdown_it.token import Token

from dropqa.ingestion.builder import TreeBuilder
from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph, table_node
from dropqa.ingestion.encoding import decode_limited
from dropqa.ingestion.parsers.base import ParseContext
from dropqa.text.headings import ends_like_sentence

_md = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")


class MarkdownParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        return parse_markdown_text(decode_limited(data, ctx.max_chars), ctx.filename)


def parse_markdown_text(text: str, filename: str) -> ParsedDocument:
    tokens = _md.parse(_strip_front_matter(text))
    builder = TreeBuilder()
    levels = _Levels()
    i = 0
    while i < len(tokens):
        i = _consume(tokens, i, builder, levels)
    return ParsedDocument(title=PurePath(filename).stem, file_type="md", children=_unlabel_empty(builder.root))


def _unlabel_empty(nodes: list[ParsedNode]) -> list[ParsedNode]:
    """A bold label with nothing under it (a title line, "**CRIMINAL JUDGMENT**" right above the next label) is
    a line of text again, not an empty section. Iterative: nesting is as deep as the headings."""
    stack = [nodes]
    while stack:
        children = stack.pop()
        for k, node in enumerate(children):
            if node.is_section and node.metadata.get("bold_label") and not node.children:
                children[k] = paragraph(node.title or "")
            elif node.is_section:
                stack.append(node.children)
    return nodes


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end != -1 and end < 4000:
            return text[end + 4 :].lstrip("\n")
    return text


# A line wholly in bold, as exported and generated documents mark their parts ("**Case Statement**",
# "**IV. Case Statement:**", "**（1）关于…的证据：**"), with a hard line break ("\\" or two blanks) allowed
_BOLD_LINE = re.compile(r"^(\*\*|__)(?P<label>[^*_\n]{2,60}?)\1[ \t]*[:：]?[ \t]*\\?[ \t]*$")
# Arabic or bracketed numbering ("1.", "(2)", "（三）"): a step inside the part the bold line before it opened
_SUB_NUMBER = re.compile(r"^(?:\d{1,2}[.)、]|[(（][\d一二三四五六七八九十]{1,3}[)）])\s*")
MAX_BOLD_LABEL_WORDS = 8
_COLON_END = re.compile(r"[:：]\W*$")  # "**Chief Complaint:**", "**证据描述**："


# A full calendar date (day, month and year): a bold line writing one without a colon states when, as a judgement
# signs off; with one it labels what happened then ("**Incident on 22nd December 2022:**").
_DATED = re.compile(
    r"(?i)\b\d{1,2}(?:st|nd|rd|th)?,?\s+(?:of\s+)?(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december),?\s+\d{4}\b|\b(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december)\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b|\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*日|"
    r"\b\d{4}-\d{1,2}-\d{1,2}\b")


def bold_label(line: str) -> str | None:
    """The part label ``line`` is when it is one line, wholly bold, and names a part, not states a fact: short,
    not a sentence ("**JAMES THOMPSON, Defendant.**"), no value after an inner colon ("**审判长：水某某**")."""
    m = _BOLD_LINE.match(line.strip())
    if not m or "\n" in line.strip():
        return None
    label = m.group("label").strip().rstrip(":：").strip()
    colon = re.search(r"[:：][*_\s\\]*$", line.strip()) is not None
    if not colon and _DATED.search(label):
        return None  # a date it states as a judgement signs off: "**Judgment Issued on 20th March 2023**"
    if (not label or ends_like_sentence(label) or label.endswith((".", "、"))
            or re.search(r"[:：]\s*\S", label) or len(label.split()) > MAX_BOLD_LABEL_WORDS):
        return None
    return label


@dataclass
class _Levels:
    """Where a bold label goes: one level below the last Markdown heading, and a numbered label ("1. Arrest")
    one further when an unnumbered bold label opened the part it is a step of."""

    heading: int = 0  # level of the last Markdown heading (0: none yet)
    bold_part: bool = False  # an unnumbered bold label is open below it

    def real(self, level: int) -> None:
        self.heading, self.bold_part = level, False

    def bold(self, label: str) -> int:
        base = min(self.heading + 1, 6)
        if _SUB_NUMBER.match(label) and self.bold_part:
            return min(base + 1, 6)
        self.bold_part = not _SUB_NUMBER.match(label)
        return base


def _consume(tokens: list[Token], i: int, builder: TreeBuilder, levels: _Levels) -> int:
    tok = tokens[i]
    if tok.type == "heading_open":
        level = int(tok.tag[1:])
        title = tokens[i + 1].content.strip()
        builder.heading(level, title or tok.markup)
        levels.real(level)
        return i + 3
    if tok.type == "paragraph_open":
        content = tokens[i + 1].content.strip()
        first, _, rest = content.partition("\n")
        label = bold_label(first)
        if label is not None and rest.strip() and (_COLON_END.search(first) or bold_label(rest.split("\n", 1)[0])):
            label = None  # a bold label over its value ("**Chief Complaint:**" + its line) is a labelled field;
            # bold lines one under another ("**Upton, Georgetown, Court**" / "**State of Georgetown**") a title block
        if label is not None:  # a bold part label opens a section, the lines under it ("**CASE PROCEDURES**" + its
            builder.heading(levels.bold(label), label, bold_label=True)  # text, no colon) its first paragraph
            content = rest.strip()
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
