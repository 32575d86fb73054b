"""Structure normalisation (seed 000 §5.1.3): split what is too long, name what is nameless.

1. Paragraphs longer than ``max_paragraph_chars`` are split at sentence boundaries
   into pieces of about ``paragraph_target_chars``.
2. Table nodes with very long renderings are split by rows, each piece repeating
   the header.
3. A section (or the document top level) with many content nodes and no
   subsections, longer than ``max_section_chars``, is split into auto-titled
   subsections (``auto_title: true``).
4. Runs of short sibling paragraphs and lists are joined into passages of about
   ``merge_paragraph_chars`` (same page, never across a heading, a table or a chat message).
5. Meaningless headings (``一、``, ``1.``, ``其他``, ``Untitled``) keep their text and
   get a short title from their content appended (``一、 星火管培生计划…``).

Offline the generated titles are extractive (the first clause of the content);
nothing here pretends to be a language model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dropqa.ingestion.document import CONTENT_TYPES, ParsedDocument, ParsedNode, section, table_node
from dropqa.text.headings import ALONE, ANY_SEP, CN_UNITS, CN_UNITS_HUNDRED, rule
from dropqa.text.sentences import split_sentences

MEANINGLESS = [
    rule("cn_item").compile(numerals=CN_UNITS_HUNDRED, sep=ANY_SEP + "?", tail=ALONE),
    rule("cn_paren").compile(numerals=CN_UNITS, tail=ALONE),
    rule("decimal").compile(digits=r"\d+", repeat="*", tail=ANY_SEP + "?" + ALONE),
    rule("chapter").compile(numerals=CN_UNITS_HUNDRED, kinds="[章节部分篇]", tail=ALONE),
    re.compile(r"^[A-Za-z][、.．]\s*$"),
    re.compile(r"^(其他|其它|杂项|补充|说明|备注|未命名|无标题|untitled|misc(ellaneous)?|other|others|notes?|section\s*\d*)\s*$",
               re.IGNORECASE),
]


@dataclass(frozen=True)
class NormalizeLimits:
    max_paragraph_chars: int = 800
    paragraph_target_chars: int = 500
    max_section_chars: int = 6000
    merge_chars: int = 500  # short sibling paragraphs joined up to this size (0: never)


def is_meaningless_title(title: str | None) -> bool:
    t = (title or "").strip()
    return not t or any(p.match(t) for p in MEANINGLESS)


def normalize(doc: ParsedDocument, limits: NormalizeLimits) -> ParsedDocument:
    doc.children = _normalize_children(doc.children, limits)
    return doc


def _normalize_children(children: list[ParsedNode], limits: NormalizeLimits) -> list[ParsedNode]:
    out: list[ParsedNode] = []
    for node in children:
        if node.node_type == "paragraph" and len(node.content) > limits.max_paragraph_chars:
            out.extend(_split_paragraph(node, limits))
        elif node.node_type == "table" and len(node.content) > limits.max_section_chars:
            out.extend(_split_table(node, limits))
        else:
            if node.is_section:
                node.children = _normalize_children(node.children, limits)
                if is_meaningless_title(node.title):
                    _enhance_title(node)
            out.append(node)
    merge = min(limits.merge_chars, limits.max_paragraph_chars)  # a merged passage is never one to split
    return _group_long_run(_merge_short_runs(out, merge) if merge else out, limits)


_MERGEABLE = frozenset({"paragraph", "list"})


def _mergeable(node: ParsedNode) -> bool:
    meta = node.metadata
    return (node.node_type in _MERGEABLE and not node.is_section and "speaker" not in meta and "table" not in meta
            and not meta.get("split"))  # the pieces of a long paragraph stay as they were cut


def _merge_short_runs(nodes: list[ParsedNode], target: int) -> list[ParsedNode]:
    """Join runs of short sibling paragraphs and lists (same page) into passages of up to ``target``
    characters: a label line ("**Judgment Result**", "Diagnosis:") stays with what it labels, and a
    passage holds a whole thought rather than a fragment — what full-text and vector search rank best."""
    out: list[ParsedNode] = []
    run: list[ParsedNode] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            kind = "list" if all(n.node_type == "list" for n in run) else "paragraph"
            meta = {**run[0].metadata, "merged": len(run)}
            out.append(ParsedNode(kind, content="\n".join(n.content for n in run), metadata=meta))
        run.clear()

    for node in nodes:
        if not _mergeable(node) or len(node.content) >= target:
            flush()
            out.append(node)
            continue
        size = sum(len(n.content) + 1 for n in run)
        if run and (size + len(node.content) > target
                    or node.metadata.get("page") != run[0].metadata.get("page")
                    or node.metadata.get("segment_type") != run[0].metadata.get("segment_type")):
            flush()
        run.append(node)
    flush()
    return out


def _split_paragraph(node: ParsedNode, limits: NormalizeLimits) -> list[ParsedNode]:
    pieces = pack_sentences(split_sentences(node.content), limits.paragraph_target_chars, limits.max_paragraph_chars)
    return [ParsedNode("paragraph", content=p, metadata={**node.metadata, "split": True}) for p in pieces]


def pack_sentences(sentences: list[str], target: int, hard_max: int) -> list[str]:
    """Greedy packing of sentences into chunks of about ``target`` characters."""
    chunks: list[str] = []
    current = ""
    for s in sentences:
        while len(s) > hard_max:  # one endless "sentence" (a 2 MB line): cut it
            if current:
                chunks.append(current)
                current = ""
            chunks.append(s[:target])
            s = s[target:]
        sep = "" if (not current or re.match(r"[\u4e00-\u9fff]", s[:1])) else " "
        if current and len(current) + len(sep) + len(s) > target:
            chunks.append(current)
            current = s
        else:
            current = f"{current}{sep}{s}"
    if current:
        chunks.append(current)
    return chunks


def _split_table(node: ParsedNode, limits: NormalizeLimits) -> list[ParsedNode]:
    table = node.metadata.get("table") or {}
    header, rows = list(table.get("header") or []), list(table.get("rows") or [])
    if len(rows) < 2:
        return [node]
    per_row = max(1, len(node.content) // max(1, len(rows)))
    step = max(1, limits.max_section_chars // per_row)
    meta = {k: v for k, v in node.metadata.items() if k != "table"}
    return [
        table_node(header, rows[i : i + step], title=node.title,
                   **{**meta, "row_slice": [i, i + len(rows[i : i + step])]})
        for i in range(0, len(rows), step)
    ]


def _group_long_run(nodes: list[ParsedNode], limits: NormalizeLimits) -> list[ParsedNode]:
    """Split a long run of content with no subsections into auto-titled subsections (not a sheet's
    row ranges: they are already cut, and a title taken from rows of numbers names nothing)."""
    if any(n.is_section for n in nodes) or all(n.node_type == "table" for n in nodes):
        return nodes
    total = sum(len(n.content) for n in nodes)
    if total <= limits.max_section_chars or len(nodes) < 4:
        return nodes
    groups: list[list[ParsedNode]] = [[]]
    size = 0
    target = max(limits.max_section_chars // 2, limits.paragraph_target_chars * 3)
    for n in nodes:
        if groups[-1] and size + len(n.content) > target:
            groups.append([])
            size = 0
        groups[-1].append(n)
        size += len(n.content)
    return [
        section(short_title(g[0].content), g, auto_title=True)
        for g in groups
        if g
    ]


def short_title(text: str, limit: int = 18) -> str:
    """An extractive title: the first clause of ``text``, cut to ``limit`` characters."""
    first = re.split(r"[。！？!?；;\n]|[，,：:](?=.{6,})", text.strip(), maxsplit=1)[0].strip()
    first = re.sub(r"^[-*•\d.、)\s]+", "", first)
    if len(first) > limit:
        first = first[:limit].rstrip() + "…"
    return first or text.strip()[:limit]


def _first_content(node: ParsedNode) -> str:
    for child in node.walk():
        if child is not node and child.node_type in CONTENT_TYPES and child.content.strip():
            return child.content
    return ""


def _enhance_title(node: ParsedNode) -> None:
    content = _first_content(node)
    if not content:
        return
    original = (node.title or "").strip()
    node.metadata["original_title"] = original
    node.metadata["title_enhanced"] = True
    generated = short_title(content)
    node.title = f"{original} {generated}".strip() if original else generated
