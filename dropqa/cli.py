"""The ``dropqa`` command: index, ask, docs, serve, run, worker, watch, mcp, eval, gc, db."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from dropqa.config import Settings, get_settings
from dropqa.db_cli import db_status, db_stop

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="DropQA — ask questions about your documents, with cited answers.")
console = Console()
T = TypeVar("T")
err = Console(stderr=True)


def _settings() -> Settings:
    from pydantic import ValidationError

    from dropqa.config import explain

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        return get_settings()
    except ValidationError as exc:
        err.print(f"[red]configuration error:[/red]\n{explain(exc)}", highlight=False)
        raise typer.Exit(2) from exc


def _opened(open_: Callable[[Settings], T], settings: Settings) -> T:
    """``open_(settings)``, or a one-line error and exit 2 when the database cannot be reached."""
    from dropqa.store.server import DatabaseUnavailable

    try:
        return open_(settings)
    except DatabaseUnavailable as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


def _services(settings: Settings):
    from dropqa.services import Services

    return _opened(Services.open, settings)


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


@app.callback()
def main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="log more")] = False) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # SIGTERM (systemd, docker, kill) and SIGHUP end the process like Ctrl-C does: `finally` blocks and
    # atexit run, so the embedded PostgreSQL is released (and stopped when this was its last user).
    # uvicorn takes these over while serving and raises them again after its graceful shutdown.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)



@app.command()
def index(
    paths: Annotated[list[Path], typer.Argument(help="files and folders (recursive)")],
    workers: Annotated[int, typer.Option("--workers", min=1, max=64,
                                         help="files parsed at once (each in its own child process); "
                                              "one embedder runs behind them")] = 1,
) -> None:
    """Index files and folders. Unchanged files are skipped; changed files become a new version.

    One line per file as it finishes (on any output); a progress bar only on a terminal. A file is
    answerable by full-text when its line is printed; embeddings follow. Ctrl-C or SIGTERM stops
    after the files being parsed and prints the summary; a rerun continues."""
    from dropqa.ingestion.files import iter_files

    settings = _settings()
    files = list(iter_files(paths, settings.ingestion.ignore_patterns))
    if not files:
        err.print("[yellow]no files found[/yellow]")
        raise typer.Exit(1)
    if _index_and_report(settings, files, workers).count("failed"):
        raise typer.Exit(1)


def _index_and_report(settings: Settings, files: list[tuple[Path, str]], workers: int):
    """Index ``files`` (:func:`_index_files`) and print the summary; exit 130 when Ctrl-C or SIGTERM
    stopped the run. ``dropqa index`` and ``dropqa run`` both index this way."""
    svc = _services(settings)
    try:
        summary = _index_files(svc, settings, files, workers)
    finally:
        svc.close()
    _print_summary(summary)
    if summary.stopped:
        raise typer.Exit(130)
    return summary


def _index_files(svc, settings: Settings, files: list[tuple[Path, str]], workers: int):
    """Run :class:`~dropqa.ingestion.batch.BatchRun` with a line per file, a bar on a terminal, and
    Ctrl-C / SIGTERM meaning "stop after the current file" (a second Ctrl-C quits at once)."""
    from dropqa.ingestion.batch import BatchRun
    from dropqa.ingestion.pipeline import Indexer

    indexer = Indexer(svc.db, settings, svc.embedder)
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=err, transient=True, disable=not err.is_terminal)
    task = bar.add_task("indexing", total=len(files))
    state = {"embedded": 0}

    def on_file(o) -> None:
        sys.stdout.write(_file_line(o) + "\n")
        sys.stdout.flush()
        bar.advance(task)

    def on_stage(key: str, stage: str) -> None:
        bar.update(task, description=f"{key[-50:]} · {stage} · embedded {state['embedded']}")

    def on_embedded(n: int) -> None:
        state["embedded"] = n
        bar.update(task, description=f"embedded {n} passages")

    run = BatchRun(indexer, workers, on_file=on_file, on_stage=on_stage, on_embedded=on_embedded)

    def on_signal(signum: int, _frame: object) -> None:
        if run.stopping:
            raise KeyboardInterrupt
        err.print(f"{signal.Signals(signum).name}: stopping after the files being parsed "
                  "(finished files are kept; Ctrl-C again to quit at once)", markup=False, highlight=False)
        run.stop()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with bar:
            summary = run.run(files)
            if any(o.status in ("indexed", "new_version") for o in summary.outcomes):
                bar.update(task, description="topics")
                indexer.refresh_topics()  # the collection's topics, once per run (from the embeddings)
            return summary
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _file_line(o) -> str:
    """One finished file, never cut: result, nodes, seconds, the whole source key, the error."""
    line = f"{o.status:<11} {o.nodes:>7} nodes {o.seconds:>8.2f} s  {o.source_key}"
    if o.error:
        line += f"  — {o.error}"
    elif o.warnings:
        line += f"  ({len(o.warnings)} warning(s): {o.warnings[0]})"
    return line


def _print_summary(summary) -> None:
    """What the run did, as plain lines (a log keeps them whole)."""
    counts = " · ".join(f"{s}: {summary.count(s)}" for s in ("indexed", "new_version", "unchanged", "failed"))
    head = "Stopped" if summary.stopped else "Indexed"
    out = [f"{head} after {len(summary.outcomes)} file(s) in {summary.seconds:.1f} s — {counts}"]
    if summary.first_written_s is not None:
        out.append(f"first file answerable (full-text) after {summary.first_written_s:.1f} s")
    out.append(f"embedded {summary.embedded} passage(s)"
               + (f"; fully embedded after {summary.fully_embedded_s:.1f} s" if summary.fully_embedded_s else ""))
    if summary.still_pending:
        out.append(f"{summary.still_pending} passage(s) still to embed: they answer by full-text now; "
                   "`dropqa index` again or a `dropqa worker` embeds them")
    if summary.embed_error:
        out.append(f"embedding stopped: {summary.embed_error}")
    failed = [o for o in summary.outcomes if o.status == "failed"]
    if failed:
        out.append(f"failed ({len(failed)}):")
        out.extend(f"  {o.source_key}  — {o.error}" for o in failed)
    sys.stdout.write("\n".join(out) + "\n")
    sys.stdout.flush()


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="the question, in Chinese or English")],
    as_json: Annotated[bool, typer.Option("--json", help="print the full JSON answer")] = False,
    version: Annotated[int | None, typer.Option("--version", min=1, help="answer from version N")] = None,
    show_reasoning: Annotated[bool, typer.Option("--show-reasoning", help="print the reasoning trace")] = False,
) -> None:
    """Ask a question; the answer cites the documents' sections."""
    from pydantic import ValidationError

    from dropqa.api.limits import QuestionInput, validation_message
    from dropqa.runtime.run import ask as run_ask

    try:  # the limits every entry point shares, checked before the database is opened
        req = QuestionInput(question=question, version=version)
    except ValidationError as exc:
        err.print(f"[red]error:[/red] {validation_message(exc)}", markup=True, highlight=False)
        raise typer.Exit(2) from None
    svc = _services(_settings())
    try:
        result = run_ask(svc, req.question, version=req.version, show_reasoning=True)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    finally:
        svc.close()
    if as_json:
        data = result.model_dump(mode="json")
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    console.print(result.answer, markup=False, highlight=False)
    console.print(f"\n[dim]{result.mode} · confidence {result.confidence} · {result.latency_ms} ms[/dim]")
    for i, s in enumerate(result.sources[:5], start=1):
        page = f" (p.{s.page}{'≈' if s.page_estimated else ''})" if s.page else ""
        console.print(f"[{i}] {s.document_name} > {s.section}{page} · v{s.version} · {s.relevance:.2f}",
                      markup=False, highlight=False)
    if show_reasoning:
        console.print("\n[bold]reasoning[/bold]")
        for st in result.reasoning_trace:
            console.print(f"  {st['step']}. {st['type']}: {st['content']}", markup=False, highlight=False)


@app.command()
def docs() -> None:
    """List indexed documents with their versions."""
    from dropqa.store.documents import list_documents
    from dropqa.store.pending import index_status

    svc = _services(_settings())
    rows = list_documents(svc.db)
    svc.close()
    statuses = [index_status(int(r["embed_done"]), int(r["embed_pending"]))["label"] for r in rows]
    if not console.is_terminal:  # a log or a pipe: whole lines, nothing cut
        for r, status in zip(rows, statuses, strict=True):
            sys.stdout.write(f"{r['source_key']}\t{r['file_type']}\tv{r['current_version']}\t"
                             f"{r['version_count']} version(s)\t{r['node_count']} nodes\t{status}\n")
        return
    table = Table(title=f"{len(rows)} document(s)")
    for col in ("document", "type", "version", "versions", "nodes", "index", "updated"):
        table.add_column(col, overflow="fold")
    for r, status in zip(rows, statuses, strict=True):
        table.add_row(r["source_key"], r["file_type"], str(r["current_version"]), str(r["version_count"]),
                      str(r["node_count"]), status, r["updated_at"].strftime("%Y-%m-%d %H:%M"))
    console.print(table)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="address to listen on")] = None,
    port: Annotated[int | None, typer.Option(help="port")] = None,
) -> None:
    """Serve the HTTP API (and the web page)."""
    settings = _settings()
    _serve(settings, host or settings.api.host, port or settings.listen_port)


# What `make run` / `dropqa serve` print as first questions: each one is answered from examples/corpus
# (tests/e2e/test_examples.py asks them and checks the cited section).
EXAMPLE_QUESTION_ZH = "核心数据库的恢复时间目标是多少？"
EXAMPLE_QUESTION_EN = "How many days of annual leave do full-time employees get?"
EXAMPLE_UPLOAD = "examples/upload/云栖科技差旅报销规定.docx"


def _listen(settings: Settings, host: str, port: int) -> socket.socket:
    """The bound socket, before any "listening on" (and, for `run`, before indexing): a public address
    without a token or a taken port is said plainly, with what to do instead."""
    from dropqa.api.auth import is_loopback
    from dropqa.api.listen import PortUnavailable, bind

    if not is_loopback(host) and not (settings.api_token or settings.api.token):
        err.print(f"[red]refusing to listen on {host} without a token[/red]: set DROPQA_API_TOKEN "
                  "(clients then send 'Authorization: Bearer <token>'), or listen on 127.0.0.1.")
        raise typer.Exit(2)
    try:
        return bind(host, port)
    except PortUnavailable as exc:
        err.print(f"[red]error:[/red] {exc}", soft_wrap=True, highlight=False)
        raise typer.Exit(2) from exc


def _serve(settings: Settings, host: str, port: int, sock: socket.socket | None = None) -> None:
    import uvicorn

    from dropqa.api.app import create_app
    from dropqa.api.hosts import WILDCARD_BINDS

    sock = sock or _listen(settings, host, port)
    settings.api.host = host  # the Host allow-list and the MCP endpoint's checks follow the real bind address
    if host.strip() in WILDCARD_BINDS and "*" not in settings.api.allowed_hosts:
        err.print(f"listening on every address: only requests for {', '.join(settings.api.allowed_hosts)} are "
                  "answered (others get 421); list the names clients use in DROPQA_API__ALLOWED_HOSTS "
                  "(JSON list, or '[\"*\"]' for any)", markup=False, highlight=False)
    try:
        svc = _services(settings)
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
    config = uvicorn.Config(create_app(settings, services=svc), host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=10)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        svc.close()


@app.command()
def run(
    paths: Annotated[list[Path] | None, typer.Argument(help="what to index first")] = None,
    host: Annotated[str | None, typer.Option(help="address to listen on")] = None,
    port: Annotated[int | None, typer.Option(help="port")] = None,
) -> None:
    """Index PATHS (default: ./examples/corpus), then serve — what `make run` does."""
    from dropqa.ingestion.files import iter_files

    settings = _settings()
    host, port = host or settings.api.host, port or settings.listen_port
    sock = _listen(settings, host, port)
    targets = paths or [Path("examples/corpus")]
    _index_and_report(settings, list(iter_files(targets, settings.ingestion.ignore_patterns)), 1)
    _serve(settings, host, port, sock)


@app.command()
def worker(
    once: Annotated[bool, typer.Option("--once", help="run at most one job, then exit")] = False,
    worker_id: Annotated[str | None, typer.Option("--id", help="worker name (default host:pid)")] = None,
) -> None:
    """Run queued ingestion jobs (from `dropqa watch` or the API) until Ctrl-C."""
    import threading

    from dropqa.ingestion.worker import Worker

    svc = _services(_settings())
    w = Worker(svc, worker_id)
    try:
        if once:
            job = w.run_once(refresh_topics=True)
            if job is None:
                err.print("no job in the queue")
            else:
                err.print(f"{job['source_key']}: {job['state']} {job['outcome'] or ''} {job['error'] or ''}")
            return
        err.print(f"worker {w.worker_id} waiting for jobs (Ctrl-C to stop)")
        stop = threading.Event()
        try:
            w.run_forever(stop)
        except KeyboardInterrupt:
            stop.set()
    finally:
        svc.close()


@app.command()
def watch(
    dirs: Annotated[list[Path], typer.Argument(help="folders to watch (recursive)")],
    no_worker: Annotated[bool, typer.Option("--no-worker", help="only enqueue; run `dropqa worker` elsewhere")] = False,
) -> None:
    """Watch folders and index every change: new, modified, moved and deleted files."""
    import threading

    from dropqa.ingestion.watcher import Watcher
    from dropqa.ingestion.worker import Worker

    settings = _settings()
    svc = _services(settings)
    stop = threading.Event()
    watcher = Watcher(svc.db, settings, dirs)
    thread = None
    try:
        watcher.start()
        if not no_worker:
            thread = threading.Thread(target=Worker(svc).run_forever, args=(stop,), name="worker", daemon=True)
            thread.start()
        err.print(f"watching {', '.join(str(r) for r in watcher.roots)}" + (" (no worker)" if no_worker else "")
                  + " — Ctrl-C to stop")
        while not stop.wait(3600):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        watcher.stop()
        if thread is not None:
            thread.join(timeout=60)
        svc.close()


@app.command("mcp")
def mcp_stdio() -> None:
    """Serve the MCP tools (ask, searches, document structure, node content) over stdio, for agents
    that start DropQA themselves. The HTTP server offers the same at /mcp."""
    from dropqa.api.mcp_server import build_mcp

    svc = _services(_settings())
    try:
        build_mcp(lambda: svc).run("stdio")
    finally:
        svc.close()


db_app = typer.Typer(no_args_is_help=True, help="The database: its connection URL, what its tables take; the "
                     "embedded server's status, stop.")
app.add_typer(db_app, name="db")
db_app.command("status")(db_status)  # dropqa/db_cli.py: the embedded server's users and stop
db_app.command("stop")(db_stop)


def _database(settings: Settings):
    """The store without the models (commands that only read or tidy tables)."""
    from dropqa.store.db import Database

    return _opened(Database.open, settings)


@db_app.command("url")
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

    settings = _settings()
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


@db_app.command("sizes")
def db_sizes() -> None:
    """What each table takes on disk (with its indexes and TOAST), and the stored file bytes."""
    from dropqa.store import blobs

    db = _database(_settings())
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


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB"


@app.command()
def gc(
    grace: Annotated[float | None, typer.Option("--grace", min=0, help="spare bytes stored less than this many "
                                                "seconds ago (default storage.blob_grace_s)")] = None,
) -> None:
    """Free stored file bytes that no version of a live document and no unfinished job names
    (deleted documents, failed uploads). Deleting a document frees its own bytes at once."""
    from dropqa.store import blobs

    db = _database(_settings())
    try:
        count, size = blobs.collect(db, grace)
        stored = blobs.stats(db)
    finally:
        db.close()
    console.print(f"freed {count} file(s), {_mb(size)}; stored: {stored['blobs']} file(s), {_mb(stored['bytes'])}")


@app.command("eval")
def eval_(
    golden: Annotated[Path, typer.Argument(help="golden suite YAML")],
    corpus: Annotated[Path, typer.Option("--corpus", help="folder with the suite's documents")],
    out: Annotated[Path, typer.Option("--out", help="where report.json / report.html go")] = Path("eval-report"),
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="first N questions")] = None,
    types: Annotated[str | None, typer.Option("--types", help="comma-separated question types")] = None,
    reuse: Annotated[bool, typer.Option("--reuse", help="use the configured store, not a fresh one")] = False,
) -> None:
    """Run a golden suite: index the corpus into a fresh store, ask every question, write reports."""
    from dropqa.evals.command import eval_command

    raise typer.Exit(eval_command(golden, corpus, out, limit=limit, types=types, reuse=reuse))

if __name__ == "__main__":  # pragma: no cover
    app()
