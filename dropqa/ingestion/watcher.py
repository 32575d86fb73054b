"""Watch folders and turn file-system events into ingestion jobs.

Events are debounced per file: an editor that writes a file in several steps,
or a copy that takes a while, produces one job once the file has been quiet for
``ingestion.watch_debounce_s``. Temp and lock files (``~$x.docx``,
``.~lock.x#``) are ignored with the same patterns as ``dropqa index``, and keys
are computed exactly like :func:`~dropqa.ingestion.files.iter_files`, so a
watched folder and an indexed folder name the same file the same way.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from dropqa.config import Settings
from dropqa.ingestion.files import ignored, iter_files
from dropqa.store import blobs, jobs
from dropqa.store import documents as doc_store
from dropqa.store.bases import DEFAULT_KB
from dropqa.store.db import Database

log = logging.getLogger(__name__)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher, root: Path):
        self.watcher, self.root = watcher, root

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory:
            self._folder_event(event)
            return
        src = _text(event.src_path)
        if isinstance(event, FileMovedEvent):
            self.watcher.note(self.root, Path(src), "delete")
            self.watcher.note(self.root, Path(_text(event.dest_path)), "index")
        elif isinstance(event, FileDeletedEvent):
            self.watcher.note(self.root, Path(src), "delete")
        elif isinstance(event, FileCreatedEvent | FileModifiedEvent | FileClosedEvent):
            self.watcher.note(self.root, Path(src), "index")


    def _folder_event(self, event: FileSystemEvent) -> None:
        """A folder moved, deleted or created as a whole: one job per file inside. Files inside a
        folder moved or deleted in one step get no events of their own (inotify reports the
        folder only), so the known documents under the old path are deleted and every file under
        the new path is indexed; duplicates of per-file events collapse in the debounce."""
        src = Path(_text(event.src_path))
        if isinstance(event, DirMovedEvent | DirDeletedEvent):
            self.watcher.note_folder_gone(self.root, src)
        if isinstance(event, DirMovedEvent):
            self.watcher.note_folder_files(self.root, Path(_text(event.dest_path)))
        elif isinstance(event, DirCreatedEvent):
            self.watcher.note_folder_files(self.root, src)


def _text(p: str | bytes) -> str:
    return p.decode() if isinstance(p, bytes) else p


class Watcher:
    """Enqueues index/delete jobs for files under ``roots`` into knowledge base ``kb``. ``start()`` / ``stop()``."""

    def __init__(self, db: Database, settings: Settings, roots: list[Path], kb: uuid.UUID = DEFAULT_KB):
        self.db = db
        self.kb = kb
        self.settings = settings
        self.roots = [r.expanduser().resolve() for r in roots]
        self._pending: dict[str, tuple[str, Path, float]] = {}  # key -> (action, path, last event time)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._observer = Observer()
        self._flusher = threading.Thread(target=self._flush_loop, name="watch-debounce", daemon=True)

    def start(self, initial_scan: bool = True) -> None:
        """Start watching; with ``initial_scan`` also queue every existing file (unchanged
        ones finish quickly as "unchanged", so this catches up on changes made while down)."""
        for root in self.roots:
            if not root.is_dir():
                raise NotADirectoryError(f"not a folder: {root}")
            self._observer.schedule(_Handler(self, root), str(root), recursive=True)
        self._observer.start()
        self._flusher.start()
        if initial_scan:
            for path, key in iter_files(list(self.roots), self.settings.ingestion.ignore_patterns):
                self.enqueue_index(key, path)

    def stop(self) -> None:
        self._stop.set()
        if self._observer.is_alive():
            self._observer.stop()
            self._observer.join()
        if self._flusher.is_alive():
            self._flusher.join()
        self.flush(force=True)

    def note(self, root: Path, path: Path, action: str) -> None:
        """Record an event; the job is enqueued by the debounce thread once the file is quiet."""
        try:
            rel = path.relative_to(root)
        except ValueError:
            return
        if any(ignored(part, self.settings.ingestion.ignore_patterns) for part in rel.parts):
            return
        with self._lock:
            self._pending[rel.as_posix()] = (action, path, time.monotonic())

    def note_folder_gone(self, root: Path, folder: Path) -> None:
        """Every indexed document under ``folder`` (now gone from there) gets a delete job."""
        try:
            rel = folder.relative_to(root).as_posix()
        except ValueError:
            return
        if rel == ".":
            return
        try:
            keys = doc_store.live_keys_under(self.db, self.kb, rel)
        except Exception:
            log.exception("cannot list the documents under %s", rel)
            return
        for key in keys:
            self.note(root, root / key, "delete")

    def note_folder_files(self, root: Path, folder: Path) -> None:
        """Every file under ``folder`` (moved or copied in as a whole) gets an index job."""
        if not folder.is_dir():
            return
        for path, _key in iter_files([folder], self.settings.ingestion.ignore_patterns):
            self.note(root, path, "index")

    def flush(self, force: bool = False) -> int:
        """Enqueue the pending events that have been quiet long enough; returns how many."""
        quiet = self.settings.ingestion.watch_debounce_s
        now = time.monotonic()
        with self._lock:
            ready = {k: v for k, v in self._pending.items() if force or now - v[2] >= quiet}
            for k in ready:
                del self._pending[k]
        for key, (action, path, _t) in sorted(ready.items()):
            if action == "index" and not path.is_file():
                continue  # gone again (or a folder); its delete event decides
            try:
                if action == "index":
                    self.enqueue_index(key, path)
                else:
                    jobs.enqueue(self.db, self.kb, key, str(path), "delete")
            except Exception:
                log.exception("cannot enqueue %s %s", action, key)
        return len(ready)

    def enqueue_index(self, key: str, path: Path) -> None:
        """Store the file's bytes in the database and queue a job that names them, so a worker on any
        machine can index it (a job still queued for the same file takes the newer bytes). A file that
        cannot be read now, or is over the size limit, is queued by path: the worker reads it or says why."""
        blob = None
        try:
            if path.stat().st_size <= self.settings.ingestion.max_file_bytes:
                blob = blobs.put(self.db, path.read_bytes())
        except OSError as exc:
            log.info("cannot read %s now (%s); queued by path", path, exc)
        jobs.enqueue(self.db, self.kb, key, str(path), "index", blob=blob, supersede=True)

    def _flush_loop(self) -> None:
        tick = max(0.05, min(0.5, self.settings.ingestion.watch_debounce_s / 4))
        while not self._stop.wait(tick):
            self.flush()
