"""Small corpora for integration tests, written to a folder and indexed: the agent corpus
(``tests/fixtures/agent_corpus``, first versions), or texts a test module writes itself."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES


def index_agent_corpus(indexer: Any, root: Path) -> Path:
    """Copy every first-version file of the agent corpus (not the ``_v2`` updates) into ``root`` and index
    it; returns ``root``."""
    for f in (FIXTURES / "agent_corpus").iterdir():
        if "_v2" not in f.name:
            shutil.copy2(f, root / f.name)
            indexer.index_file(root / f.name, f.name)
    return root


def index_texts(indexer: Any, root: Path, texts: dict[str, str]) -> Path:
    """Write each ``file name → text`` into ``root`` and index it (each must index); returns ``root``."""
    for name, text in texts.items():
        (root / name).write_text(text, encoding="utf-8")
        outcome = indexer.index_file(root / name, name)
        assert outcome.status == "indexed", (name, outcome.error)
    return root
