"""The process every ``dropqa`` command runs in: how much it logs, and SIGTERM / SIGHUP ending it like Ctrl-C."""

from __future__ import annotations

import logging
import signal

from dropqa.config import get_settings


def configure_logging(verbose: bool) -> None:
    """Other libraries log warnings, and info with ``--verbose``; DropQA's own loggers log from the
    ``log_level`` setting (``DROPQA_LOG_LEVEL``), and at least info with ``--verbose``."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        level = logging.getLevelNamesMapping()[get_settings().log_level]
    except Exception:  # a wrong configuration is the command's to report (one line per setting, exit 2)
        return
    logging.getLogger("dropqa").setLevel(min(level, logging.INFO) if verbose else level)


def end_on_signals() -> None:
    """SIGTERM (systemd, docker, kill) and SIGHUP end the process like Ctrl-C does: ``finally`` blocks and
    atexit run, so the embedded PostgreSQL is released (and stopped when this was its last user).
    uvicorn takes these over while serving and raises them again after its graceful shutdown."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit_on_signal)


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)
