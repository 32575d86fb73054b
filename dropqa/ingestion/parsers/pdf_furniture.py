"""Page furniture: running headers and footers and page numbers, dropped from PDF text pages.

A line is furniture when it sits in the top or bottom band of most pages at the same height with the
same text once its numbers are masked, and those numbers either stay put (a year, a chapter) or follow
the page number. A number that jumps about from page to page (a reading, an amount) makes the line
content. And stripping never takes a page's body: a page left with nothing but furniture — no other
line, table or picture — keeps its lines (page numbers excepted), so a PDF whose every page holds one
line is a document, not a run of headers.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence

from dropqa.ingestion.parsers.pdf_extract import PageData
from dropqa.ingestion.parsers.pdf_layout import TextLine

BAND = 0.12  # the top and bottom share of the page where headers and footers sit
PAGE_NUMBER = re.compile(
    r"^[-–—\s]*(page\s*)?\d{1,4}(\s*(/|of)\s*\d{1,4})?[-–—\s]*$|^第\s*\d+\s*页(\s*[,，/]?\s*共\s*\d+\s*页)?$"
    r"|^[ivxlc]{1,6}$",
    re.I,
)
_NUMBER = re.compile(r"\d+")
Key = tuple[str, int]


def _key(line: TextLine) -> Key:
    return (_NUMBER.sub("#", "".join(line.text.split())), round(line.bbox[1] / 4))


def _in_band(line: TextLine, page: PageData) -> bool:
    y = (line.bbox[1] + line.bbox[3]) / 2
    return y < page.height * BAND or y > page.height * (1 - BAND)


def _numbers_run(occurrences: Sequence[tuple[int, list[int]]]) -> bool:
    """True when every number slot of a repeated line is steady or tracks the page number.

    Steady: few distinct values (a year, a chapter number that changes a few times). Tracking: the value
    minus the page number takes at most two values (an offset that changes once after the front matter).
    """
    slots = min(len(numbers) for _, numbers in occurrences)
    steady_limit = max(2, len(occurrences) // 5)
    for slot in range(slots):
        values = [numbers[slot] for _, numbers in occurrences]
        offsets = {value - page for (page, _), value in zip(occurrences, values, strict=True)}
        if len(set(values)) > steady_limit and len(offsets) > 2:
            return False
    return True


def _running_keys(pages: Sequence[PageData]) -> set[Key]:
    seen: dict[Key, list[tuple[int, list[int]]]] = defaultdict(list)
    for page in pages:
        for key, line in {_key(ln): ln for ln in page.lines if _in_band(ln, page)}.items():
            seen[key].append((page.number, [int(n) for n in _NUMBER.findall(line.text)]))
    if len(pages) < 2:
        return set()
    threshold = max(2, math.ceil(len(pages) * 0.5))
    return {key for key, occurrences in seen.items() if len(occurrences) >= threshold and _numbers_run(occurrences)}


def drop_running_lines(pages: Sequence[PageData]) -> None:
    """Remove page headers/footers and page numbers, never a page's body (see the module's note)."""
    running = _running_keys(pages)
    for page in pages:
        numbers = {ln.order for ln in page.lines if _in_band(ln, page) and PAGE_NUMBER.match(ln.text.strip())}
        furniture = {ln.order for ln in page.lines if _in_band(ln, page) and _key(ln) in running} | numbers
        body = [ln for ln in page.lines if ln.order not in furniture]
        if not body and not page.tables and not page.images:
            body = [ln for ln in page.lines if ln.order not in numbers]
        page.lines = body

