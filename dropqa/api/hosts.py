"""The Host allow-list, on every route (REST, ``/v1``, ``/mcp``, the web page, health).

A browser page on ``evil.example`` can point its own name at ``127.0.0.1`` (DNS rebinding) and read
a token-less loopback server as "same origin" — but its requests then carry ``Host: evil.example``.
Only the names in ``api.allowed_hosts`` (loopback names by default, plus the address the server
listens on unless it is a wildcard) are answered; anything else gets ``421 Misdirected Request``.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from dropqa.api.errors import Problem

WILDCARD_BINDS = frozenset({"", "0.0.0.0", "::", "[::]"})


def host_name(header: str) -> str:
    """``Host`` without its port, lower case, IPv6 without brackets: ``[::1]:8000`` → ``::1``."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def allowed_names(configured: Iterable[str], bind_host: str) -> frozenset[str] | None:
    """The names to answer; ``None`` means any (``*`` configured)."""
    names = {host_name(h) for h in configured if h.strip()}
    if "*" in names:
        return None
    if bind_host.strip() not in WILDCARD_BINDS:
        names.add(host_name(bind_host))
    return frozenset(names)


class HostGuard:
    def __init__(self, app: ASGIApp, *, allowed: frozenset[str] | None):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.allowed is not None:
            name = host_name(Headers(scope=scope).get("host", ""))
            if name not in self.allowed:
                refused = Problem("misdirected_request", 421, f"this server does not answer for host {name!r}; "
                                  "add it to DROPQA_API__ALLOWED_HOSTS if it is yours")
                await refused.response()(scope, receive, send)
                return
        await self.app(scope, receive, send)
