"""The agent corpus (``tests/fixtures/agent_corpus``, first versions) copied to a folder and indexed."""

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
