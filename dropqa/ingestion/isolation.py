"""Parsing in a child process with a time limit and an address-space limit.

One pathological file (a decompression bomb, a parser stuck in a loop, a crash in
a C extension) then fails that file only and never takes the indexer down. A parser
that raises something other than ``ParseError`` is a bug: the file's job gets a short
message, and the child's traceback reaches this process's log.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import traceback
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dropqa.ingestion.document import ParsedDocument
    from dropqa.ingestion.parsers import ParseContext

log = logging.getLogger(__name__)


def _parse_child(conn: Connection, file_type: str, data: bytes, ctx: ParseContext, memory_mb: int) -> None:
    """Runs in the child: apply the memory limit, parse, send back ``(kind, payload)``.

    The limit is on *new* address space: the child starts as a copy of the fork server, whose
    preloaded parser libraries already map a few hundred MB, so ``memory_mb`` is added to that.
    Ctrl-C in a terminal reaches the whole process group: the child ignores it, so the file being
    parsed finishes and the indexer decides when to stop (``dropqa index`` stops after it).
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if memory_mb > 0:
        import resource

        limit = _address_space() + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from dropqa.ingestion.parsers import ParseError, get_parser

    try:
        conn.send(("ok", get_parser(file_type).parse(data, ctx)))
    except ParseError as exc:
        conn.send(("parse_error", str(exc)))
    except MemoryError:
        conn.send(("parse_error", f"ran out of memory while parsing (limit {memory_mb} MB); "
                                  "the file is too large or malformed"))
    except Exception as exc:  # a parser bug: the traceback goes to the parent's log
        conn.send(("crash", (f"unexpected {type(exc).__name__} while parsing: {exc}", traceback.format_exc())))
    finally:
        conn.close()


def _address_space() -> int:
    """This process's current virtual memory size in bytes (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


_mp_context: Any = None
_context_lock = threading.Lock()  # `dropqa index --workers N` parses from several threads


def _context() -> Any:
    """forkserver: children fork from a small, single-threaded server (safe next to the worker's
    threads and the embedder's native thread pools) with the parser modules already imported."""
    global _mp_context
    with _context_lock:
        if _mp_context is None:
            ctx = multiprocessing.get_context("forkserver")
            from dropqa.ingestion.parsers import parser_modules

            ctx.set_forkserver_preload(parser_modules())
            _mp_context = ctx
        return _mp_context


def parse_isolated(file_type: str, data: bytes, ctx: ParseContext, *, timeout_s: float,
                   memory_mb: int) -> ParsedDocument:
    """``get_parser(file_type).parse(data, ctx)`` in a child process; raises ``ParseError`` on
    failure, timeout or a crashed child."""
    from dropqa.ingestion.parsers import ParseError

    mp = _context()
    parent, child = mp.Pipe(duplex=False)
    proc = mp.Process(target=_parse_child, args=(child, file_type, data, ctx, memory_mb), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout_s):
            raise ParseError(f"parsing took longer than {timeout_s:g} s and was stopped (ingestion.parse_timeout_s)")
        try:
            kind, payload = parent.recv()
        except EOFError:
            proc.join(5)
            raise ParseError(f"the parser process died (exit code {proc.exitcode}); "
                             "the file is probably malformed or too large") from None
    finally:
        parent.close()
        if proc.is_alive():
            proc.join(1)
            if proc.is_alive():
                proc.kill()
                proc.join()
    if kind == "crash":
        message, child_traceback = payload
        log.error("the %s parser failed on %s: %s\n%s", file_type, ctx.filename, message, child_traceback.rstrip())
        raise ParseError(message)
    if kind != "ok":
        raise ParseError(payload)
    return payload
