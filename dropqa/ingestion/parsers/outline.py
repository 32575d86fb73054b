"""Turn a flat run of headings and content into the nested section tree.

Parsers that read a document top to bottom (Word, PDF) see headings with a
level; this stack puts each heading inside the nearest preceding heading of a
smaller level and each content node into the innermost open section.
"""

from __future__ import annotations

from dropqa.ingestion.document import ParsedNode
from dropqa.ingestion.parsers.heading_patterns import title_rank


class Outline:
    def __init__(self) -> None:
        self.roots: list[ParsedNode] = []
        self._stack: list[tuple[int, ParsedNode]] = []

    @property
    def has_sections(self) -> bool:
        return bool(self.roots) and any(n.is_section for n in self.roots)

    @property
    def current(self) -> ParsedNode | None:
        return self._stack[-1][1] if self._stack else None

    def add(self, node: ParsedNode) -> None:
        """Append content to the innermost open section (top level before the first heading)."""
        (self._stack[-1][1].children if self._stack else self.roots).append(node)

    def open(self, node: ParsedNode, level: int) -> None:
        """Open a section at ``level`` (1 = top), closing open sections at the same or deeper level."""
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self.add(node)
        self._stack.append((level, node))

    def open_relative(self, node: ParsedNode, rank: int) -> int:
        """Open a section one level below the nearest open section numbered at a higher rank.

        ``一、`` after ``（一）`` closes the ``（一）`` section and ``一、`` siblings;
        sections whose titles carry no Chinese numbering (styled headings,
        ``3.2 …``) enclose it. Returns the level used.
        """
        while self._stack:
            top_rank = title_rank(self._stack[-1][1].title)
            if top_rank is None or top_rank < rank:
                break
            self._stack.pop()
        level = self._stack[-1][0] + 1 if self._stack else 1
        self.open(node, level)
        return level
