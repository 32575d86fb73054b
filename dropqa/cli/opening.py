"""What a command opens — its settings, the services, the database; each failure is one line and exit 2 —
and the two consoles the commands print on."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console

from dropqa.config import Settings, get_settings

console = Console()
err = Console(stderr=True)
T = TypeVar("T")


def load_settings() -> Settings:
    """The settings, or what is wrong with them (one line per setting) and exit 2."""
    from pydantic import ValidationError

    from dropqa.config import explain

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        return get_settings()
    except ValidationError as exc:
        err.print(f"[red]configuration error:[/red]\n{explain(exc)}", highlight=False)
        raise typer.Exit(2) from exc


def opened(open_: Callable[[Settings], T], settings: Settings) -> T:
    """``open_(settings)``, or a one-line error and exit 2 when the database cannot be reached."""
    from dropqa.store.server import DatabaseUnavailable

    try:
        return open_(settings)
    except DatabaseUnavailable as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


def open_services(settings: Settings):
    """The store, the models and the graph (:class:`~dropqa.services.Services`)."""
    from dropqa.services import Services

    return opened(Services.open, settings)


def open_database(settings: Settings):
    """The store without the models (commands that only read or tidy tables)."""
    from dropqa.store.db import Database

    return opened(Database.open, settings)


def coded(call: Callable[[], T]) -> T:
    """``call()``, or its :class:`~dropqa.errors.CodedError`'s message (no such base, a name taken, …) as one
    line and exit 2."""
    from dropqa.errors import CodedError

    try:
        return call()
    except CodedError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc


def base_ids(db, names: list[str] | None, *, default_all: bool = False):
    """The ids of the knowledge bases ``names`` names (exit 2, with how to make it, for an unknown one);
    without names, ``default`` — or every base with ``default_all``."""
    from dropqa.store import bases

    if not names:
        return bases.all_ids(db) if default_all else (bases.DEFAULT_KB,)
    try:
        return bases.resolve(db, names)
    except bases.UnknownBase as exc:
        err.print(f"[red]error:[/red] {exc}; `dropqa kb list` shows the bases, `dropqa kb create "
                  f"{exc.params['kb']}` makes it", highlight=False)
        raise typer.Exit(2) from exc
