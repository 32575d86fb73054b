"""``dropqa db …`` (the embedded PostgreSQL's status and stop, the connection URL, what the tables take)
and ``dropqa gc`` (frees stored file bytes nothing names)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from dropqa.cli.opening import console, err, load_settings, open_database
from dropqa.config import get_settings

app = typer.Typer(no_args_is_help=True, help="The database: its connection URL, what its tables take; the "
                  "embedded server's status, stop.")


@app.command("status")
def db_status() -> None:
    """Is the embedded PostgreSQL running, and which DropQA processes use it. Exit 0 running, 3 stopped."""
    from dropqa.store.server import status

    _embedded_only()
    info = status(get_settings().data_dir)
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


@app.command("stop")
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


def _embedded_only() -> None:
    if get_settings().database_url:
        err.print("DATABASE_URL is set: DropQA uses that server and neither starts nor stops one itself.")
        raise typer.Exit(1)


@app.command("url")
def db_url(
    tcp: Annotated[bool, typer.Option("--tcp", help="make the embedded server listen on 127.0.0.1 with a password "
                                      "and print that URL (DATABASE_URL for workers started elsewhere)")] = False,
    port: Annotated[int | None, typer.Option("--port", min=1, max=65535,
                                             help="the TCP port (default: the one chosen before, else a free one)")
                    ] = None,
) -> None:
    """Print the database's connection URL: DATABASE_URL when set, else the embedded server's. The
    embedded server runs while a dropqa process of this data dir runs (`dropqa serve`, `watch`, ...)."""
    from dropqa.store.server import DatabaseUnavailable, embedded_url, enable_tcp

    settings = load_settings()
    if settings.database_url:
        if tcp or port:
            err.print("[red]error:[/red] DATABASE_URL is set: DropQA uses that server, not an embedded one")
            raise typer.Exit(2)
        print(settings.database_url)
        return
    try:
        url = enable_tcp(settings.data_dir, port) if tcp else embedded_url(settings.data_dir)
    except DatabaseUnavailable as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    print(url)
    if tcp:
        err.print(f"the embedded server of {settings.data_dir} listens on 127.0.0.1 from now on, while a dropqa "
                  "process of this data dir runs (e.g. `dropqa serve`)", highlight=False)


@app.command("sizes")
def db_sizes() -> None:
    """What each table takes on disk (with its indexes and TOAST), and the stored file bytes."""
    from dropqa.store import blobs

    db = open_database(load_settings())
    try:
        rows = blobs.table_sizes(db)
        stored = blobs.stats(db)
    finally:
        db.close()
    table = Table(title="tables")
    for col in ("table", "rows≈", "total", "heap", "toast", "indexes"):
        table.add_column(col, justify="left" if col == "table" else "right")
    for r in rows:
        table.add_row(r["table"], str(r["rows"]) if r["rows"] >= 0 else "?", *(_mb(r[k]) for k in
                                                           ("total_bytes", "heap_bytes", "toast_bytes", "index_bytes")))
    console.print(table)
    console.print(f"stored files: {stored['blobs']}, {_mb(stored['bytes'])} "
                  f"({_mb(stored['disk_bytes'])} on disk)")


def gc(
    grace: Annotated[float | None, typer.Option("--grace", min=0, help="spare bytes stored less than this many "
                                                "seconds ago (default storage.blob_grace_s)")] = None,
) -> None:
    """Free stored file bytes that no version of a live document and no unfinished job names
    (deleted documents, failed uploads). Deleting a document frees its own bytes at once."""
    from dropqa.store import blobs

    db = open_database(load_settings())
    try:
        count, size = blobs.collect(db, grace)
        stored = blobs.stats(db)
    finally:
        db.close()
    console.print(f"freed {count} file(s), {_mb(size)}; stored: {stored['blobs']} file(s), {_mb(stored['bytes'])}")


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB"
