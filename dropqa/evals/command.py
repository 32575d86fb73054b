"""``dropqa eval GOLDEN.yaml --corpus DIR [--out DIR] [--limit N] [--types a,b] [--reuse] [--kb NAME]``.

Without ``--reuse`` the corpus is indexed into a fresh, throw-away store: a new data directory
with its own embedded PostgreSQL, or — when ``DATABASE_URL`` is set — a new database on that
server (dropped afterwards). With ``--reuse`` the configured store is used as it is; the corpus
is indexed only when some of its documents are missing from the base (re-indexing a staged ``_vN``
corpus would otherwise add versions).

``--kb NAME`` indexes the corpus into knowledge base NAME (made when it does not exist) and asks
its questions of that base alone; several suites with ``--reuse`` and a base each share one store
and answer as each would alone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from dropqa.config import Settings, get_settings
from dropqa.evals.suite import SuiteError, load_suite, select

console = Console(width=None if sys.stdout.isatty() else 160)  # a report, also when piped
err = Console(stderr=True)


@contextmanager
def fresh_settings(base: Settings) -> Iterator[Settings]:
    """Settings pointing at an empty store, cleaned up afterwards."""
    if base.database_url:
        import psycopg
        from psycopg.conninfo import make_conninfo

        name = "dropqa_eval_" + uuid.uuid4().hex[:10]
        with psycopg.connect(base.database_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            yield base.model_copy(update={"database_url": make_conninfo(base.database_url, dbname=name)})
        finally:
            try:
                with psycopg.connect(base.database_url, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except psycopg.Error as exc:  # pragma: no cover - best effort
                err.print(f"[yellow]could not drop the eval database {name}: {exc}[/yellow]")
        return
    data_dir = Path(tempfile.mkdtemp(prefix="dropqa-eval-"))
    data_dir.chmod(0o755)  # the embedded server runs unprivileged when we are root
    # registered before the server starts, so it runs after the server's own exit hook stops it
    atexit.register(shutil.rmtree, data_dir, True)
    yield base.model_copy(update={"data_dir": data_dir})


def _corpus_indexed(services, corpus: Path, kb: uuid.UUID) -> bool:
    from dropqa.evals.metrics import base_name
    from dropqa.evals.runner import corpus_files
    from dropqa.store.documents import list_documents
    from dropqa.store.scope import Scope

    bases, versions = corpus_files(corpus, services.settings.ingestion.ignore_patterns)
    wanted = {p.name for p in bases} | {base_name(p.name)[0] for p in versions}
    have = {r["source_key"] for r in list_documents(services.db, Scope(kbs=(kb,)), limit=100_000)}
    return wanted <= have


def eval_base(services, name: str | None) -> uuid.UUID:
    """The id of base ``name`` (made when missing); ``default`` without a name."""
    from dropqa.store import bases

    if not name:
        return bases.DEFAULT_KB
    found = bases.find(services.db, name)
    return found["id"] if found is not None else bases.create(services.db, name)["id"]


def eval_command(golden: Path, corpus: Path, out: Path = Path("eval-report"), limit: int | None = None,
                 types: str | None = None, reuse: bool = False, settings: Settings | None = None,
                 kb: str | None = None) -> int:
    """Run the suite and write the reports; return the exit status (0 ok, 2 bad input or no database)."""
    from dropqa.errors import CodedError
    from dropqa.evals.report import print_console, write_report
    from dropqa.evals.runner import run_suite
    from dropqa.services import Services
    from dropqa.store.server import DatabaseUnavailable

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        items = select(load_suite(golden), types=[t.strip() for t in types.split(",") if t.strip()] if types else None,
                       limit=limit)
    except SuiteError as exc:
        err.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        return 2
    if not items:
        err.print("[yellow]no questions left after --types / --limit[/yellow]")
        return 2
    if not corpus.is_dir():
        err.print(f"[red]error:[/red] corpus folder not found: {corpus}")
        return 2
    base = settings or get_settings()

    @contextmanager
    def store() -> Iterator[Settings]:
        if reuse:
            yield base
        else:
            with fresh_settings(base) as s:
                yield s

    with store() as s:
        try:
            svc = Services.open(s)
        except DatabaseUnavailable as exc:
            err.print(f"[red]error:[/red] {exc}")
            return 2
        try:
            try:
                kb_id = eval_base(svc, kb)
            except CodedError as exc:
                err.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
                return 2
            index = not (reuse and _corpus_indexed(svc, corpus, kb_id))
            if not index:
                err.print("[dim]--reuse: the corpus is already indexed; asking only[/dim]")
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                          console=err, transient=True) as bar:
                task = bar.add_task("eval", total=None)

                def progress(desc: str, done: int, total: int) -> None:
                    bar.update(task, description=desc[:60], completed=done, total=total)

                report = run_suite(svc, items, corpus, index=index, progress=progress, suite_name=golden.name,
                                   kb=kb_id)
        finally:
            svc.close()
    failed_index = [o for o in report["meta"]["indexing"] if o["status"] == "failed"]
    for o in failed_index:
        err.print(f"[yellow]indexing {o['file']} failed:[/yellow] {o['error']}")
    print_console(report, console)
    json_path, html_path = write_report(report, out)
    console.print(f"wrote {json_path} and {html_path}")
    return 0
