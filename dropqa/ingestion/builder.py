"""Build a section tree from a flat stream of headings and content nodes (every parser uses this one)."""

from __future__ import annotations

from collections.abc import Callable

from dropqa.ingestion.document import ParsedNode, section


class TreeBuilder:
    """Nest sections by heading level: a level-2 heading goes inside the open level-1 section.

    Parsers that read a document top to bottom (Markdown, text, Word, PDF) see
    headings with a level; each heading goes inside the nearest preceding heading
    of a smaller level and each content node into the innermost open section
    (top level before the first heading). Works iteratively (a file with 20,000
    headings is fine) and tolerates skipped levels (H1 → H3 nests the H3 directly
    under the H1).
    """

    def __init__(self) -> None:
        self.root: list[ParsedNode] = []
        self._stack: list[tuple[int, ParsedNode]] = []

    @property
    def has_sections(self) -> bool:
        return any(n.is_section for n in self.root)

    @property
    def current(self) -> ParsedNode | None:
        return self._stack[-1][1] if self._stack else None

    def heading(self, level: int, title: str, **metadata: object) -> ParsedNode:
        """Open a new section titled ``title`` at ``level``; returns it."""
        node = section(title, **metadata)
        self.open(node, level)
        return node

    def open(self, node: ParsedNode, level: int) -> None:
        """Open ``node`` as a section at ``level`` (1 = top), closing open sections at the same or deeper level."""
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self.add(node)
        self._stack.append((level, node))

    def add(self, node: ParsedNode) -> None:
        """Append content to the innermost open section (top level before the first heading)."""
        (self._stack[-1][1].children if self._stack else self.root).append(node)

    def open_relative(self, node: ParsedNode, rank: int, rank_of: Callable[[str | None], int | None]) -> int:
        """Open a section one level below the nearest open section numbered at a higher rank.

        ``rank_of`` gives a title's rank in the numbering hierarchy (None: not numbered so).
        With Chinese numbering, ``一、`` after ``（一）`` closes the ``（一）`` section and ``一、``
        siblings; sections whose titles carry no such numbering (styled headings, ``3.2 …``)
        enclose it. Returns the level used.
        """
        while self._stack:
            top_rank = rank_of(self._stack[-1][1].title)
            if top_rank is None or top_rank < rank:
                break
            self._stack.pop()
        level = self._stack[-1][0] + 1 if self._stack else 1
        self.open(node, level)
        return level
