"""Build a section tree from a flat stream of headings and content nodes."""

from __future__ import annotations

from dropqa.ingestion.document import ParsedNode, section


class TreeBuilder:
    """Nest sections by heading level: a level-2 heading goes inside the open level-1 section.

    Works iteratively (a file with 20,000 headings is fine) and tolerates skipped
    levels (H1 → H3 nests the H3 directly under the H1).
    """

    def __init__(self) -> None:
        self.root: list[ParsedNode] = []
        self._stack: list[tuple[int, ParsedNode]] = []

    def heading(self, level: int, title: str, **metadata: object) -> ParsedNode:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        node = section(title, **metadata)
        self._container().append(node)
        self._stack.append((level, node))
        return node

    def add(self, node: ParsedNode) -> None:
        self._container().append(node)

    def _container(self) -> list[ParsedNode]:
        return self._stack[-1][1].children if self._stack else self.root
