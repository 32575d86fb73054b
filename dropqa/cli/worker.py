"""``dropqa worker`` (runs queued ingestion jobs) and ``dropqa watch`` (queues every change in folders,
and runs a worker unless told not to)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated

import typer

from dropqa.cli.opening import base_ids, err, load_settings, open_services


def worker(
    once: Annotated[bool, typer.Option("--once", help="run at most one job, then exit")] = False,
    worker_id: Annotated[str | None, typer.Option("--id", help="worker name (default host:pid)")] = None,
) -> None:
    """Run queued ingestion jobs (from `dropqa watch` or the API) until Ctrl-C."""
    from dropqa.ingestion.worker import Worker

    svc = open_services(load_settings())
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


def watch(
    dirs: Annotated[list[Path], typer.Argument(help="folders to watch (recursive)")],
    no_worker: Annotated[bool, typer.Option("--no-worker", help="only enqueue; run `dropqa worker` elsewhere")] = False,
    kb: Annotated[str | None, typer.Option("--kb", help="the knowledge base the files go to (default: default)")]
    = None,
) -> None:
    """Watch folders and index every change into one knowledge base: new, modified, moved and deleted files."""
    from dropqa.ingestion.watcher import Watcher
    from dropqa.ingestion.worker import Worker

    settings = load_settings()
    svc = open_services(settings)
    stop = threading.Event()
    try:
        kb_id = base_ids(svc.db, [kb] if kb else None)[0]
    except BaseException:
        svc.close()
        raise
    watcher = Watcher(svc.db, settings, dirs, kb_id)
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
