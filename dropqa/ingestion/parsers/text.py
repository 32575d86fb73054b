"""Plain text → node tree, auto-structured.

Three shapes are recognised, in this order:

1. chat logs (``2025-03-02 08:47 王磊`` headers, or ``[time] name: message``):
   one section per day, one paragraph per message;
2. numbered headings (``第三章``, ``一、``, ``（一）``, ``1.1``) and short title-like
   lines followed by body text: a section tree;
3. otherwise blank-line blocks become paragraphs (normalisation later groups and
   titles them when the text is long).
"""

from __future__ import annotations

import itertools
import re
from pathlib import PurePath

from dropqa.ingestion.builder import TreeBuilder
from dropqa.ingestion.document import ParsedDocument, ParsedNode, paragraph, section
from dropqa.ingestion.encoding import decode_limited
from dropqa.ingestion.parsers.base import ParseContext
from dropqa.text.headings import LevelResolver, classify_heading, ends_like_sentence

_TS = r"(\d{4}[-/年]\d{1,2}[-/月]\d{1,2}日?)\s+(\d{1,2}:\d{2}(?::\d{2})?)"
CHAT_HEADER = re.compile(rf"^{_TS}\s+(\S.{{0,30}}?)\s*$")  # 2025-03-02 08:47 王磊
CHAT_NAME_FIRST = re.compile(rf"^(\S.{{0,30}}?)\s+{_TS}\s*$")  # 王磊 2025-03-02 08:47:12
CHAT_INLINE = re.compile(rf"^\[?{_TS}\]?\s*([^:：\s][^:：]{{0,30}})[:：]\s*(.+)$")  # [ts] 王磊: text


class TextParser:

    def parse(self, data: bytes, ctx: ParseContext) -> ParsedDocument:
        return parse_plain_text(decode_limited(data, ctx.max_chars), ctx.filename)


def parse_plain_text(text: str, filename: str) -> ParsedDocument:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    lines = text.split("\n")
    title = PurePath(filename).stem
    chat = _parse_chat(lines)
    if chat is not None:
        return ParsedDocument(title=title, file_type="txt", children=chat, metadata={"layout": "chat"})
    return ParsedDocument(title=title, file_type="txt", children=_parse_structured(lines))


# --- chat logs ---------------------------------------------------------------------------


def _chat_header(line: str) -> tuple[str, str, str, str | None] | None:
    """(date, time, speaker, inline message or None)."""
    s = line.strip()
    if m := CHAT_INLINE.match(s):
        return m.group(1), m.group(2), m.group(3).strip(), m.group(4).strip()
    if m := CHAT_HEADER.match(s):
        return m.group(1), m.group(2), m.group(3).strip(), None
    if m := CHAT_NAME_FIRST.match(s):
        return m.group(2), m.group(3), m.group(1).strip(), None
    return None


def _parse_chat(lines: list[str]) -> list[ParsedNode] | None:
    headers = [i for i, line in enumerate(lines) if _chat_header(line)]
    if len(headers) < 3 or len(headers) < 0.08 * sum(1 for x in lines if x.strip()):
        return None
    preamble = [x.strip() for x in lines[: headers[0]] if x.strip() and not set(x.strip()) <= set("—-=_* ")]
    out: list[ParsedNode] = []
    if preamble:
        out.append(paragraph("\n".join(preamble)))
    days: dict[str, ParsedNode] = {}
    bounds = [*headers, len(lines)]
    for start, end in itertools.pairwise(bounds):
        date, time, speaker, inline = _chat_header(lines[start])  # type: ignore[misc]
        body = [x.strip() for x in lines[start + 1 : end] if x.strip()]
        message = "\n".join(([inline] if inline else []) + body)
        if not message:
            continue
        day = _norm_date(date)
        if day not in days:
            days[day] = section(day, chat_day=True)
            out.append(days[day])
        days[day].children.append(
            paragraph(f"{speaker}（{time}）：{message}", speaker=speaker, timestamp=f"{day} {time}")
        )
    return out


def _norm_date(date: str) -> str:
    parts = re.findall(r"\d+", date)
    if len(parts) >= 3:
        return f"{int(parts[0]):04d}-{int(parts[1]):02d}-{int(parts[2]):02d}"
    return date


# --- headings and blocks -----------------------------------------------------------------


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line.rstrip())
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _is_title_like(block: list[str], next_block: list[str] | None) -> bool:
    """A lone short line with no sentence punctuation, followed by longer text."""
    if len(block) != 1 or next_block is None:
        return False
    s = block[0].strip()
    if len(s) > 30 or ends_like_sentence(s) or s.startswith(("-", "*", "•")):
        return False
    return sum(len(x) for x in next_block) > len(s) * 2


def _parse_structured(lines: list[str]) -> list[ParsedNode]:
    builder = TreeBuilder()
    resolver = LevelResolver()
    blocks = _blocks(lines)
    plain_title_level: int | None = None
    for idx, block in enumerate(blocks):
        nxt = blocks[idx + 1] if idx + 1 < len(blocks) else None
        pending: list[str] = []
        for line in block:
            m = classify_heading(line)
            if m is not None and (len(block) > 1 or nxt is not None or pending):
                _flush(builder, pending)
                pending = []
                builder.heading(resolver.level(m), line.strip())
                continue
            pending.append(line)
        if pending and len(pending) == len(block) and _is_title_like(block, nxt):
            if plain_title_level is None:
                plain_title_level = (len(resolver.seen) or 0) + 1
            builder.heading(plain_title_level, block[0].strip(), title_like=True)
            continue
        _flush(builder, pending)
    return builder.root


def _flush(builder: TreeBuilder, lines: list[str]) -> None:
    if not lines:
        return
    if all(re.match(r"^\s*([-*•·]|\d+[.)、])\s+", x) for x in lines) and len(lines) > 1:
        builder.add(ParsedNode("list", content="\n".join(x.strip() for x in lines)))
        return
    builder.add(paragraph(_join_lines(lines)))


def _join_lines(lines: list[str]) -> str:
    """Join hard-wrapped lines: no space between CJK characters, a space between words."""
    out = lines[0].strip()
    for line in lines[1:]:
        s = line.strip()
        if out and s and re.match(r"[\u4e00-\u9fff，。；：、]", out[-1]) and re.match(r"[\u4e00-\u9fff]", s[0]):
            out += s
        else:
            out += "\n" + s
    return out
