"""The rooms' order (docs/architecture.md): a module imports only from its own room and the rooms before it —
module-level and function-level imports alike; only the graph imports its nodes."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dropqa"

# Each entry is one step of the order; a room may import from its own step and every step before it.
ORDER: tuple[frozenset[str], ...] = (
    frozenset({"config", "errors", "blocking"}),
    frozenset({"text"}),
    frozenset({"store"}),
    frozenset({"models"}),
    frozenset({"services"}),
    frozenset({"ingestion"}),
    frozenset({"retrieval"}),
    frozenset({"answering"}),
    frozenset({"tools"}),
    frozenset({"graph"}),
    frozenset({"runtime"}),
    frozenset({"evals"}),
    frozenset({"api"}),
    frozenset({"cli"}),
)
STEP = {room: i for i, rooms in enumerate(ORDER) for room in rooms}


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "dropqa" and len(parts) > 1 else None


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if node.module == "dropqa"]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return found


def _modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        out.append((".".join(rel.parts), path))
    return out


def test_every_room_is_in_the_order() -> None:
    rooms = {_room(name) for name, _ in _modules()} - {None, "__init__", "__main__"}
    assert rooms <= set(STEP), f"rooms missing from the order: {sorted(rooms - set(STEP))}"


def test_no_import_runs_against_the_room_order() -> None:
    wrong = []
    for name, path in _modules():
        mine = _room(name)
        if mine not in STEP:
            continue
        for line, target in _imports(path):
            theirs = _room(target)
            if theirs in STEP and STEP[theirs] > STEP[mine]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} ({mine}) imports {target} ({theirs})")
    assert not wrong, "\n".join(wrong)


def test_only_the_graph_imports_its_nodes() -> None:
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
             for name, path in _modules() if not name.startswith("dropqa.graph.")
             for line, target in _imports(path) if target.startswith("dropqa.graph.nodes")]
    assert not wrong, "\n".join(wrong)


def test_the_graph_room_is_the_graph_only() -> None:
    top = {p.name for p in (PACKAGE / "graph").iterdir() if not p.name.startswith("__pycache__")}
    assert top == {"__init__.py", "graph.py", "state.py", "nodes", "prompts"}
