"""``dropqa serve`` (the HTTP API, the web page, MCP at /mcp), ``dropqa run`` (index, then serve) and
``dropqa mcp`` (the MCP tools over stdio). The socket is bound before anything is said or indexed."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from dropqa.cli.index import index_and_report
from dropqa.cli.opening import err, load_settings, open_database, open_services
from dropqa.config import Settings

# What `make run` / `dropqa serve` print as first questions: each one is answered from examples/corpus
# (tests/e2e/test_examples.py asks them and checks the cited section).
EXAMPLE_QUESTION_ZH = "核心数据库的恢复时间目标是多少？"
EXAMPLE_QUESTION_EN = "How many days of annual leave do full-time employees get?"
EXAMPLE_UPLOAD = "examples/upload/云栖科技差旅报销规定.docx"


def serve(
    host: Annotated[str | None, typer.Option(help="address to listen on")] = None,
    port: Annotated[int | None, typer.Option(help="port")] = None,
) -> None:
    """Serve the HTTP API (and the web page)."""
    settings = load_settings()
    _serve(settings, settings.api.host if host is None else host, port or settings.port)


def run(
    paths: Annotated[list[Path] | None, typer.Argument(help="what to index first")] = None,
    host: Annotated[str | None, typer.Option(help="address to listen on")] = None,
    port: Annotated[int | None, typer.Option(help="port")] = None,
) -> None:
    """Index PATHS (default: ./examples/corpus), then serve — what `make run` does."""
    from dropqa.ingestion.files import iter_files

    settings = load_settings()
    host, port = settings.api.host if host is None else host, port or settings.port
    sock = _listen(settings, host, port)
    targets = paths or [Path("examples/corpus")]
    index_and_report(settings, list(iter_files(targets, settings.ingestion.ignore_patterns)), 1)
    _serve(settings, host, port, sock)


def mcp_stdio() -> None:
    """Serve the MCP tools (ask, searches, document structure, node content) over stdio, for agents
    that start DropQA themselves. The HTTP server offers the same at /mcp."""
    from dropqa.api.mcp_server import build_mcp

    svc = open_services(load_settings())
    try:
        build_mcp(lambda: svc).run("stdio")
    finally:
        svc.close()


def _listen(settings: Settings, host: str, port: int) -> socket.socket:
    """The bound socket, before any "listening on" (and, for `run`, before indexing): an empty address,
    a public one without a token or a taken port is said plainly, with what to do instead."""
    from dropqa.api.auth import is_loopback
    from dropqa.api.listen import PortUnavailable, bind
    from dropqa.config import EMPTY_HOST

    if not host.strip():
        err.print(f"[red]error:[/red] {EMPTY_HOST}", soft_wrap=True, highlight=False)
        raise typer.Exit(2)
    if not is_loopback(host) and not settings.api_token and not _keys_exist(settings):
        err.print(f"[red]refusing to listen on {host} without a token or API keys[/red]: make keys with "
                  "`dropqa keys create` or set DROPQA_API_TOKEN (clients then send 'Authorization: Bearer "
                  "<key>'), or listen on 127.0.0.1.")
        raise typer.Exit(2)
    try:
        return bind(host, port)
    except PortUnavailable as exc:
        err.print(f"[red]error:[/red] {exc}", soft_wrap=True, highlight=False)
        raise typer.Exit(2) from exc


def _keys_exist(settings: Settings) -> bool:
    """Has an API key been made in this store? Then every request needs a key (or the token). An embedded
    store that was never started has none (and is not started to find out)."""
    from dropqa.store.keys import any_key
    from dropqa.store.server import pgdata_of

    if not settings.database_url and not pgdata_of(settings.data_dir).exists():
        return False
    db = open_database(settings)
    try:
        return any_key(db)
    finally:
        db.close()


def _serve(settings: Settings, host: str, port: int, sock: socket.socket | None = None) -> None:
    sock = sock or _listen(settings, host, port)  # refused (or bound) before the app's imports: seconds sooner
    import uvicorn

    from dropqa.api.app import create_app
    from dropqa.api.hosts import WILDCARD_BINDS

    settings.api.host = host  # the Host allow-list and the MCP endpoint's checks follow the real bind address
    if host.strip() in WILDCARD_BINDS and "*" not in settings.api.allowed_hosts:
        err.print(f"listening on every address: only requests for {', '.join(settings.api.allowed_hosts)} are "
                  "answered (others get 421); list the names clients use in DROPQA_API__ALLOWED_HOSTS "
                  "(JSON list, or '[\"*\"]' for any)", markup=False, highlight=False)
    try:
        svc = open_services(settings)
    except BaseException:
        sock.close()
        raise
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{port}"
    for line in (f"DropQA listening on {base}  (web page: {base}/ · API docs: {base}/docs · MCP: {base}/mcp)",
                 f"  ask:    curl -s -X POST {base}/api/qa/ask -H 'Content-Type: application/json' "
                 f"-d '{{\"question\": \"{EXAMPLE_QUESTION_ZH}\"}}'",
                 f"  or:     .venv/bin/dropqa ask \"{EXAMPLE_QUESTION_EN}\"",
                 f"  upload: curl -s -F 'files=@{EXAMPLE_UPLOAD}' {base}/api/documents/upload"):
        err.print(line, soft_wrap=True, markup=False, highlight=False)
    if settings.api.embedded_workers:
        err.print(f"  {settings.api.embedded_workers} ingestion worker(s) run inside the server")
    from dropqa.store.keys import any_key

    if settings.api_token or any_key(svc.db):
        err.print("  every request needs a key: add -H 'Authorization: Bearer <key>' (`dropqa keys create` makes one)",
                  soft_wrap=True, markup=False, highlight=False)
    config = uvicorn.Config(create_app(settings, services=svc), host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=10)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        svc.close()
