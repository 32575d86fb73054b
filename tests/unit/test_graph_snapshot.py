"""A snapshot of the compiled graph's mermaid drawing: wiring changes show up in review.

Regenerate after an intended change with ``DROPQA_UPDATE_SNAPSHOTS=1 pytest tests/unit/test_graph_snapshot.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

from dropqa.graph.graph import graph

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"


def test_graph_drawing_matches_snapshot():
    mermaid = graph.get_graph().draw_mermaid()
    if os.environ.get("DROPQA_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(mermaid, encoding="utf-8")
    assert mermaid == SNAPSHOT.read_text(encoding="utf-8")


def test_loop_edges_are_all_there():
    mermaid = SNAPSHOT.read_text(encoding="utf-8")
    for edge in ("quality_check -.-> think", "think -.-> act", "act --> evaluate", "evaluate --> adapt",
                 "adapt -.-> think", "adapt -.-> read_document", "quality_check -.-> read_document",
                 "read_document --> synthesize",
                 "answer --> verify", "verify --> finalize", "finalize --> __end__"):
        assert edge in mermaid, edge
