"""``dropqa db status`` / ``dropqa db stop``: the embedded PostgreSQL of the data dir and who uses it.

Registered on the ``db`` sub-app of :mod:`dropqa.cli` beside ``db url`` and ``db sizes``.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from dropqa.config import get_settings

console = Console()
err = Console(stderr=True)


def _embedded_only() -> None:
    if get_settings().database_url:
        err.print("DATABASE_URL is set: DropQA uses that server and neither starts nor stops one itself.")
        raise typer.Exit(1)


def db_status() -> None:
    """Is the embedded PostgreSQL running, and which DropQA processes use it. Exit 0 running, 3 stopped."""
    from dropqa.store.server import status

    _embedded_only()
    data_dir = get_settings().data_dir
    info = status(data_dir)
    server = info["server"]
    if server is None:
        console.print(f"embedded PostgreSQL: stopped ({info['pgdata']})", markup=False, highlight=False)
    else:
        console.print(f"embedded PostgreSQL: running, pid {server['pid']}, since {server['started']:%Y-%m-%d %H:%M}"
                      f" ({info['pgdata']})", markup=False, highlight=False)
        console.print(f"  url: {server['url']}", markup=False, highlight=False)
    users = info["users"]
    console.print(f"used by {len(users)} DropQA process(es)" + (":" if users else
                  " (it stops when the last one exits)" if server is None else
                  " — left behind by a killed process; `dropqa db stop` stops it"), markup=False, highlight=False)
    for u in users:
        console.print(f"  pid {u['pid']}: {u['command']}", markup=False, highlight=False)
    raise typer.Exit(0 if server is not None else 3)


def db_stop(force: Annotated[bool, typer.Option("--force", help="stop it even while DropQA processes use it")]
            = False) -> None:
    """Stop the embedded PostgreSQL now (it also stops by itself when the last DropQA process exits)."""
    from dropqa.store.server import stop

    _embedded_only()
    stopped, users = stop(get_settings().data_dir, force=force)
    if users and not force:
        err.print(f"not stopped: {len(users)} DropQA process(es) use it (pids "
                  f"{', '.join(str(u.pid) for u in users)}); stop them, or `dropqa db stop --force`")
        raise typer.Exit(1)
    console.print("embedded PostgreSQL stopped" if stopped else "embedded PostgreSQL was not running")
