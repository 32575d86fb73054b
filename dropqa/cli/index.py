"""``dropqa index`` (a line per file, a bar on a terminal, a summary; Ctrl-C stops after the current files)
and ``dropqa docs`` (the indexed documents). ``dropqa run`` indexes through :func:`index_and_report`."""

from __future__ import annotations

import signal
import sys
import time
import uuid
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from dropqa.cli.opening import base_ids, console, err, load_settings, open_database, open_services
from dropqa.config import Settings
from dropqa.ingestion.backlog import Backlog

KbOption = Annotated[str | None, typer.Option("--kb", help="the knowledge base (default: default); "
                                                        "`dropqa kb create NAME` makes one")]


def index(
    paths: Annotated[list[Path], typer.Argument(help="files and folders (recursive)")],
    workers: Annotated[int, typer.Option("--workers", min=1, max=64,
                                         help="files parsed at once (each in its own child process); "
                                              "one embedder runs behind them")] = 1,
    no_wait: Annotated[bool, typer.Option("--no-wait", help="return once every file is written (answerable by "
                                          "full-text) and leave the embeddings still to compute to the workers "
                                          "(`dropqa serve`, `dropqa worker`) or the next `dropqa index`")] = False,
    kb: KbOption = None,
) -> None:
    """Index files and folders. Unchanged files are skipped; changed files become a new version.

    One line per file as it finishes (on any output); a progress bar only on a terminal. A file is
    answerable by full-text when its line is printed; embeddings follow, and the command waits for
    them showing the backlog and the time left (unless --no-wait). Ctrl-C or SIGTERM stops after the
    files being parsed and prints the summary; a rerun continues."""
    from dropqa.ingestion.files import iter_files

    settings = load_settings()
    files = list(iter_files(paths, settings.ingestion.ignore_patterns))
    if not files:
        err.print("[yellow]no files found[/yellow]")
        raise typer.Exit(1)
    if index_and_report(settings, files, workers, kb, wait=not no_wait).count("failed"):
        raise typer.Exit(1)


def index_and_report(settings: Settings, files: list[tuple[Path, str]], workers: int, kb: str | None = None,
                     wait: bool = True):
    """Index ``files`` into base ``kb`` (:func:`_index_files`) and print the summary; exit 130 when Ctrl-C or
    SIGTERM stopped the run. ``dropqa index`` and ``dropqa run`` both index this way; ``wait``: until every
    embedding is filled (else the workers fill them)."""
    svc = open_services(settings)
    try:
        kb_id = base_ids(svc.db, [kb] if kb else None)[0]
        summary = _index_files(svc, settings, files, workers, kb_id, wait)
    finally:
        svc.close()
    _print_summary(summary, waited=wait)
    if summary.stopped:
        raise typer.Exit(130)
    return summary


def _index_files(svc, settings: Settings, files: list[tuple[Path, str]], workers: int, kb: uuid.UUID,
                 wait: bool = True):
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

    printed = [0.0]

    def on_backlog(left: Backlog) -> None:
        """While waiting for the embedder: the bar on a terminal, a line every ``backlog_report_s`` in a log."""
        if bar.disable:
            now = time.monotonic()
            if now - printed[0] >= settings.ingestion.backlog_report_s:
                printed[0] = now
                sys.stdout.write(left.line() + "\n")
                sys.stdout.flush()
        else:
            bar.update(task, description=left.line())

    run = BatchRun(indexer, workers, on_file=on_file, on_stage=on_stage, on_embedded=on_embedded,
                   on_backlog=on_backlog, kb=kb)

    def on_signal(signum: int, _frame: object) -> None:
        if run.stopping:
            raise KeyboardInterrupt
        err.print(f"{signal.Signals(signum).name}: stopping after the files being parsed "
                  "(finished files are kept; Ctrl-C again to quit at once)", markup=False, highlight=False)
        run.stop()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with bar:
            summary = run.run(files, wait_for_embeddings=wait)
            if any(o.status in ("indexed", "new_version") for o in summary.outcomes):
                bar.update(task, description="topics")
                indexer.refresh_topics(kb)  # the base's topics, once per run (from the embeddings)
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


def _print_summary(summary, waited: bool = True) -> None:
    """What the run did, as plain lines (a log keeps them whole)."""
    counts = " · ".join(f"{s}: {summary.count(s)}" for s in ("indexed", "new_version", "unchanged", "failed"))
    head = "Stopped" if summary.stopped else "Indexed"
    out = [f"{head} after {len(summary.outcomes)} file(s) in {summary.seconds:.1f} s — {counts}"]
    if summary.first_written_s is not None:
        out.append(f"first file answerable (full-text) after {summary.first_written_s:.1f} s")
    out.append(f"embedded {summary.embedded} passage(s)"
               + (f"; fully embedded after {summary.fully_embedded_s:.1f} s" if summary.fully_embedded_s else ""))
    if summary.still_pending:
        by = "" if waited else " (--no-wait)"
        out.append(f"{summary.still_pending} passage(s) still to embed{by}: they answer by full-text now; "
                   "a running `dropqa serve` or `dropqa worker` embeds them, or `dropqa index` again")
    if summary.embed_error:
        out.append(f"embedding stopped: {summary.embed_error}")
    failed = [o for o in summary.outcomes if o.status == "failed"]
    if failed:
        out.append(f"failed ({len(failed)}):")
        out.extend(f"  {o.source_key}  — {o.error}" for o in failed)
    sys.stdout.write("\n".join(out) + "\n")
    sys.stdout.flush()


class DocOrder(StrEnum):
    name = "name"
    time = "time"


def docs(kb: Annotated[list[str] | None, typer.Option("--kb", help="only this knowledge base (repeat for "
                                                                    "several; default: every base)")] = None,
         sort: Annotated[DocOrder, typer.Option("--sort", help="name: by file name, A to Z; time: most recently "
                                                "changed first")] = DocOrder.name,
         ) -> None:
    """List indexed documents with their versions, by name or by time."""
    from dropqa.store.documents import list_documents
    from dropqa.store.pending import index_status
    from dropqa.store.scope import Scope

    db = open_database(load_settings())  # a listing reads tables only: no models to load
    try:
        rows = list_documents(db, Scope(kbs=base_ids(db, kb, default_all=True)), order=sort.value)
    finally:
        db.close()
    statuses = [index_status(int(r["embed_done"]), int(r["embed_pending"]))["label"] for r in rows]
    if not console.is_terminal:  # a log or a pipe: whole lines, nothing cut
        for r, status in zip(rows, statuses, strict=True):
            sys.stdout.write(f"{r['source_key']}\t{r['kb']}\t{r['file_type']}\tv{r['current_version']}\t"
                             f"{r['version_count']} version(s)\t{r['node_count']} nodes\t{status}\n")
        return
    table = Table(title=f"{len(rows)} document(s)")
    for col in ("document", "base", "type", "version", "versions", "nodes", "index", "updated"):
        table.add_column(col, overflow="fold")
    for r, status in zip(rows, statuses, strict=True):
        table.add_row(r["source_key"], r["kb"], r["file_type"], str(r["current_version"]), str(r["version_count"]),
                      str(r["node_count"]), status, r["updated_at"].strftime("%Y-%m-%d %H:%M"))
    console.print(table)
