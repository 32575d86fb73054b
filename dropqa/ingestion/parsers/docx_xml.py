"""Low-level reading of WordprocessingML elements: text, tables, picture references.

python-docx exposes paragraphs and tables as separate lists, which loses their
order and skips text inside hyperlinks' fields, content controls and text boxes.
Walking the raw body XML keeps everything in document order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from docx.oxml.ns import qn
from lxml import etree

W_P, W_TBL, W_TR, W_TC = qn("w:p"), qn("w:tbl"), qn("w:tr"), qn("w:tc")
W_SDT, W_SDT_CONTENT, W_CUSTOM_XML = qn("w:sdt"), qn("w:sdtContent"), qn("w:customXml")
W_T, W_TAB, W_BR, W_CR = qn("w:t"), qn("w:tab"), qn("w:br"), qn("w:cr")
W_NO_BREAK_HYPHEN = qn("w:noBreakHyphen")
W_PPR, W_RPR, W_TXBX = qn("w:pPr"), qn("w:rPr"), qn("w:txbxContent")
W_VAL, W_TYPE = qn("w:val"), qn("w:type")
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
A_BLIP = qn("a:blip")
V_IMAGEDATA = "{urn:schemas-microsoft-com:vml}imagedata"
R_EMBED, R_ID = qn("r:embed"), qn("r:id")

# Containers that only wrap paragraphs/tables (content controls, custom XML, tracked moves).
_BLOCK_WRAPPERS = {W_SDT, W_SDT_CONTENT, W_CUSTOM_XML, qn("w:ins"), qn("w:moveTo")}
_SKIP_IN_TEXT = {MC_FALLBACK, W_PPR, W_RPR, qn("w:instrText"), qn("w:delText"), qn("w:fldData")}
_SPACES = re.compile(r"[ \t\u00a0\u3000]+")


def is_on(el: etree._Element | None) -> bool:
    """OOXML on/off property: present means on unless ``w:val`` says 0/false/off."""
    if el is None:
        return False
    return el.get(W_VAL, "true").lower() not in {"0", "false", "off", "none"}


def iter_blocks(parent: etree._Element) -> Iterator[etree._Element]:
    """Paragraphs and tables directly in ``parent``, descending into content controls."""
    for child in parent:
        if child.tag in (W_P, W_TBL):
            yield child
        elif child.tag in _BLOCK_WRAPPERS:
            yield from iter_blocks(child)


def paragraph_text(p: etree._Element) -> str:
    """Visible text of a paragraph, including hyperlinks, field results and text boxes.

    ``mc:Fallback`` is skipped because it repeats the ``mc:Choice`` content
    (Word writes text boxes twice, once as DrawingML and once as VML).
    """
    parts: list[str] = []
    _collect_text(p, parts)
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _collect_text(el: etree._Element, parts: list[str]) -> None:
    for child in el:
        tag = child.tag
        if not isinstance(tag, str) or tag in _SKIP_IN_TEXT:
            continue
        if tag == W_T:
            parts.append(child.text or "")
        elif tag == W_TAB:
            parts.append(" ")
        elif tag == W_NO_BREAK_HYPHEN:
            parts.append("-")
        elif tag == W_CR or (tag == W_BR and child.get(W_TYPE) in (None, "textWrapping")):
            parts.append("\n")
        elif tag == W_P:  # a paragraph inside a text box
            parts.append("\n")
            _collect_text(child, parts)
            parts.append("\n")
        else:
            _collect_text(child, parts)


def block_text(el: etree._Element) -> str:
    """Text of a paragraph or of everything inside a table cell (nested tables included)."""
    if el.tag == W_P:
        return paragraph_text(el)
    if el.tag == W_TBL:
        return " ".join(filter(None, (cell for row in table_grid(el) for cell in row)))
    return " ".join(filter(None, (block_text(b) for b in iter_blocks(el))))


def _children(el: etree._Element, tag: str) -> Iterator[etree._Element]:
    """Direct children with ``tag``, looking through content-control wrappers around rows/cells."""
    for child in el:
        if child.tag == tag:
            yield child
        elif child.tag in _BLOCK_WRAPPERS:
            yield from _children(child, tag)


def _w_path(path: str) -> str:
    """``"w:tcPr/w:gridSpan"`` in the Clark notation ``find`` understands."""
    return "/".join(qn(step) for step in path.split("/"))


def _int_prop(el: etree._Element, path: str, default: int) -> int:
    found = el.find(_w_path(path))
    try:
        return int(found.get(W_VAL)) if found is not None else default
    except (TypeError, ValueError):
        return default


def table_grid(tbl: etree._Element) -> list[list[str]]:
    """Rows of cell texts on the table grid; merged cells repeat their value in every slot.

    Repeating the value (rather than leaving blanks) keeps each row self-contained
    once it is rendered as ``header: value`` pairs and split into chunks.
    """
    rows: list[list[str]] = []
    above: dict[int, str] = {}
    for tr in _children(tbl, W_TR):
        row = [""] * _int_prop(tr, "w:trPr/w:gridBefore", 0)
        for tc in _children(tr, W_TC):
            span = max(1, _int_prop(tc, "w:tcPr/w:gridSpan", 1))
            vmerge = tc.find(_w_path("w:tcPr/w:vMerge"))
            continues = vmerge is not None and vmerge.get(W_VAL, "continue") != "restart"
            col = len(row)
            text = above.get(col, "") if continues else block_text(tc)
            for offset in range(span):
                above[col + offset] = text
                row.append(text)
        rows.append(row)
    width = max((len(r) for r in rows), default=0)
    return [r + [""] * (width - len(r)) for r in rows]


def picture_rids(el: etree._Element) -> list[str]:
    """Relationship ids of embedded pictures (DrawingML blips, else legacy VML), in order, once each."""
    rids = [b.get(R_EMBED) for b in el.iter(A_BLIP)]
    if not any(rids):
        rids = [v.get(R_ID) for v in el.iter(V_IMAGEDATA)]
    return list(dict.fromkeys(r for r in rids if r))
