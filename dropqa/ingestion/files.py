"""Which files a path argument means, and what key identifies each one."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from pathlib import Path


def ignored(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) for p in patterns)


def iter_files(paths: list[Path], ignore: list[str]) -> Iterator[tuple[Path, str]]:
    """Yield ``(file, source_key)``; the key is the path relative to the argument's root.

    For a folder argument the root is the folder; for a file argument, the file's
    own folder — so indexing ``corpus/`` or ``corpus/a.md`` gives ``a.md`` the same key.
    """
    for arg in paths:
        arg = arg.expanduser()
        if arg.is_dir():
            root = arg.resolve()
            for f in sorted(root.rglob("*")):
                rel = f.relative_to(root)
                if f.is_file() and not any(ignored(part, ignore) for part in rel.parts):
                    yield f, rel.as_posix()
        elif arg.is_file() or not arg.exists():
            yield arg, arg.name
