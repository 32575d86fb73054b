"""Bind the listening socket before anything says "listening": a taken port is a clear error
that names how to choose another one, never a banner followed by ``Errno 98``."""

from __future__ import annotations

import errno
import socket


class PortUnavailable(OSError):
    """The address cannot be bound; the message says why and how to choose another port."""


def how_to_choose_port(example: int = 8765) -> str:
    return (f"choose another port: `make run PORT={example}`, `dropqa serve --port {example}` "
            f"or DROPQA_PORT={example}")


def bind(host: str, port: int) -> socket.socket:
    """A bound, listening TCP socket for uvicorn (``Server.run(sockets=[...])``)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortUnavailable(f"cannot listen on {host}: {exc.strerror}") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailable(f"port {port} on {host} is already in use (another DropQA or another "
                                  f"program); {how_to_choose_port(8765 if port != 8765 else 8766)}") from exc
        if exc.errno == errno.EACCES:
            raise PortUnavailable(f"no permission to listen on port {port} (ports below 1024 need root); "
                                  f"{how_to_choose_port()}") from exc
        raise PortUnavailable(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock
