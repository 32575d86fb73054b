"""Heading detection and tree building for PDF (and OCR'd) text.

Headings come from the outline when the PDF has one, otherwise from typography
(lines set larger or bolder than the body text, levels by distinct styles) and
from strong numbering patterns (``第3章``, ``3.2 备份策略``, ``一、``, ``附表1``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dropqa.ingestion.builder import TreeBuilder
from dropqa.ingestion.document import ParsedNode
from dropqa.ingestion.ocr import BBox, join_lines
from dropqa.text.headings import CN_UNITS, TITLE_FOLLOWS, depth_of, rule

_EN_APPENDIX = "(?:附录|附件|appendix)"
_PATTERNS: list[tuple[re.Pattern[str], int]] = [
    (rule("chapter").compile(), 1),
    (rule("cn_section").compile(), 2),
    (rule("cn_item").compile(numerals=CN_UNITS, tail=TITLE_FOLLOWS), 1),
    (rule("cn_paren").compile(numerals=CN_UNITS, tail=TITLE_FOLLOWS), 2),
    (rule("appendix").compile(words=_EN_APPENDIX, tail=rf"(\s*[\dA-Z{CN_UNITS}]+)?(\s|[：:]|$)"), 1),
    (rule("appendix").compile(ignore_case=False, words="附表", tail=rf"\s*[\dA-Z{CN_UNITS}]"), 2),
    (rule("en_chapter").compile(), 1),
]
_DOTTED = rule("decimal").compile(tail=r"\.?\s*[^\d.\s]")
_SINGLE = rule("arabic_top").compile()
_APPENDIX = rule("appendix").compile(words="(?:附表|附录|附件|appendix)")
_SENTENCE_END = re.compile(r"[。；;，,、]$")
_CJK_CLAUSE = re.compile(r"[。；，]")


def pattern_level(text: str) -> int | None:
    """Heading level implied by a strong numbering pattern, else None (``1.`` list items are not)."""
    text = text.strip()
    for pattern, level in _PATTERNS:
        if pattern.match(text):
            return level
    dotted = _DOTTED.match(text)
    if dotted:
        return depth_of(dotted.group(1))
    return None


def numbering_depth(text: str) -> int | None:
    """``3`` → 1, ``3.2`` → 2, ``3.2.1`` → 3 (with a title after the number), else None."""
    text = text.strip()
    dotted = _DOTTED.match(text)
    if dotted:
        return depth_of(dotted.group(1))
    if _SINGLE.match(text):
        return 1
    return None


def is_appendix_title(title: str | None) -> bool:
    return bool(title and _APPENDIX.match(title.strip()))


def plausible_heading(text: str, max_chars: int = 60) -> bool:
    text = text.strip()
    if not 0 < len(text) <= max_chars or _SENTENCE_END.search(text) or _CJK_CLAUSE.search(text):
        return False  # a heading is short and not a sentence
    return any(ch.isalpha() for ch in text)


@dataclass
class TextLine:
    """One line of a PDF text layer."""

    text: str
    bbox: BBox
    size: float
    bold: bool
    page: int
    order: int
    heading_level: int | None = None
    heading_title: str | None = None  # printed title when a heading spans several lines
    continuation: bool = False  # second line of a multi-line heading (title is on the first)
    consumed: bool = False  # used elsewhere (a table caption): not a paragraph


@dataclass
class Heading:
    title: str
    level: int
    page: int
    metadata: dict[str, object] = field(default_factory=dict)
    order: float = -1.0  # position among the page's line orders (outline entries not printed)


Item = Heading | ParsedNode


def body_size(lines: Sequence[TextLine]) -> float:
    """The most common font size, weighted by characters."""
    counts: Counter[float] = Counter()
    for line in lines:
        counts[round(line.size * 2) / 2] += len(line.text.strip())
    return counts.most_common(1)[0][0] if counts else 10.0


def _style(line: TextLine) -> tuple[float, bool]:
    return (round(line.size * 2) / 2, line.bold)


def _candidate_groups(lines: Sequence[TextLine], body: float, body_bold: bool) -> list[list[TextLine]]:
    """Runs of consecutive emphasised lines with the same style (a heading may wrap onto 2–3 lines)."""
    groups: list[list[TextLine]] = []
    for line in lines:
        size = round(line.size * 2) / 2
        emphasised = size >= body * 1.12 or (line.bold and not body_bold and size >= body - 0.5)
        if not emphasised:
            groups.append([])
            continue
        prev = groups[-1][-1] if groups and groups[-1] else None
        if (
            prev
            and prev.page == line.page
            and _style(prev) == _style(line)
            and (line.bbox[1] - prev.bbox[3] < 0.6 * line.size)
        ):
            groups[-1].append(line)
        else:
            groups.append([line])
    return [g for g in groups if 0 < len(g) <= 3 and plausible_heading(join_lines([ln.text for ln in g]), 80)]


def assign_font_headings(lines: Sequence[TextLine]) -> None:
    """Mark heading lines by typography; levels by style, refined by numbering depth."""
    body = body_size(lines)
    bold_chars = sum(len(ln.text) for ln in lines if ln.bold and round(ln.size * 2) / 2 == body)
    body_chars = sum(len(ln.text) for ln in lines if round(ln.size * 2) / 2 == body)
    groups = _candidate_groups(lines, body, bold_chars > body_chars / 2)
    typical_depth: dict[tuple[float, bool], int] = {}
    for group in groups:
        depth = numbering_depth(group[0].text)
        style = _style(group[0])
        if depth is not None:
            typical_depth[style] = min(depth, typical_depth.get(style, depth))

    def key(group: list[TextLine]) -> tuple[float, bool, int]:
        size, bold = _style(group[0])
        depth = numbering_depth(group[0].text) or typical_depth.get((size, bold), 0)
        return (-size, not bold, depth)

    keys = [key(g) for g in groups]
    ranks = {k: i + 1 for i, k in enumerate(sorted(set(keys)))}
    cover = _cover_title(groups, keys)
    for group, k in zip(groups, keys, strict=True):
        level = 1 if group is cover else ranks[k] - (1 if cover is not None else 0)
        title = join_lines([ln.text for ln in group])
        group[0].heading_level, group[0].heading_title = level, title
        for extra in group[1:]:
            extra.continuation = True


def _cover_title(groups: list[list[TextLine]], keys: list[tuple[float, bool, int]]) -> list[TextLine] | None:
    """A title printed once, on page 1, in the largest style: a sibling of the chapters, not their parent."""
    if len(set(keys)) < 2:
        return None
    top = min(keys)
    tops = [g for g, k in zip(groups, keys, strict=True) if k == top]
    first = tops[0][0]
    numbered = numbering_depth(first.text) is not None or pattern_level(first.text) is not None
    return tops[0] if len(tops) == 1 and first.page == 1 and not numbered else None


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def assign_toc_headings(pages: Sequence[Sequence[TextLine]], toc: Sequence[Sequence[Any]]) -> list[Heading]:
    """Match outline entries to the printed heading lines; return the entries not printed on their page.

    An unprinted entry is placed where the outline puts it: after the content of the previous
    matched heading of that page (before the next one), or at the top of the page.
    """
    events: dict[int, list[TextLine | Heading]] = {}
    for entry in toc:
        level, title, page_no = int(entry[0]), str(entry[1]).strip(), int(entry[2])
        if not title or not 1 <= page_no <= len(pages):
            continue
        line = _mark_toc_line(pages[page_no - 1], title, level)
        events.setdefault(page_no, []).append(line or Heading(title, level, page_no))
    missing: list[Heading] = []
    for page_events in events.values():
        for i, event in enumerate(page_events):
            if isinstance(event, TextLine):
                continue
            before = [e for e in page_events[:i] if isinstance(e, TextLine)]
            after = [e for e in page_events[i + 1 :] if isinstance(e, TextLine)]
            event.order = -1.0 if not before else (after[0].order - 0.25 if after else float("inf"))
            missing.append(event)
    return missing


def _mark_toc_line(lines: Sequence[TextLine], title: str, level: int) -> TextLine | None:
    target = _norm(title)
    free = [ln for ln in lines if ln.heading_level is None and not ln.continuation]
    for i, line in enumerate(free):
        text = _norm(line.text)
        if not text:
            continue
        if text == target or (text.startswith(target) and len(text) <= len(target) + 6):
            line.heading_level, line.heading_title = level, line.text.strip()
            return line
        if target.startswith(text) and i + 1 < len(free):
            nxt = free[i + 1]
            if target == text + _norm(nxt.text):
                line.heading_level, line.heading_title = level, join_lines([line.text, nxt.text])
                nxt.continuation = True
                return line
    return None


def build_tree(items: Sequence[Item]) -> list[ParsedNode]:
    """Nest content under headings by level (content before the first heading stays top-level)."""
    builder = TreeBuilder()
    for item in items:
        if isinstance(item, Heading):
            builder.heading(item.level, item.title, page=item.page, page_estimated=False, **item.metadata)
        else:
            builder.add(item)
    return builder.root


def flag_appendix(nodes: Sequence[ParsedNode], appendix_pages: set[int], inside: bool = False) -> None:
    """Tables/figures on the last pages, and everything under 附表/附录/Appendix headings."""
    for node in nodes:
        if node.is_section:
            flag_appendix(node.children, appendix_pages, inside or is_appendix_title(node.title))
            continue
        on_last_pages = node.node_type in ("table", "image") and node.metadata.get("page") in appendix_pages
        if inside or on_last_pages:
            node.metadata["appendix_flag"] = True


def appendix_pages(page_count: int) -> set[int]:
    """The last 10% of the pages, at least the last one."""
    count = max(1, page_count // 10)
    return set(range(page_count - count + 1, page_count + 1))
