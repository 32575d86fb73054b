"""Bearer-token auth.

Listening on loopback needs no token; listening anywhere else — a wildcard address included, which
listens on every interface — refuses to start without one (``dropqa serve``; an empty address and a
blank token are refused at start too).
When a token is configured, every route but ``/api/health`` (and the web page's static files,
which hold no document data) requires ``Authorization: Bearer <token>`` — the API, ``/v1`` and
``/mcp`` alike. :class:`TokenFirst` is the one gate: the app's outermost check after the Host,
made before anything reads the request body, so a client without the token learns nothing from
validation errors. What it guards is :func:`needs_token` (a test holds every route to it).
"""

from __future__ import annotations

import ipaddress
import secrets

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from dropqa.api.errors import Problem

PROTECTED_PREFIXES = ("/api/", "/v1/", "/v1", "/mcp")
OPEN_PATHS = frozenset({"/api/health"})
UNAUTHORIZED = Problem("unauthorized", 401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"})


def is_loopback(host: str) -> bool:
    """``True`` only for an address that listens on loopback alone. An empty host, ``0.0.0.0`` or
    ``::`` listens on every interface: not loopback."""
    host = host.strip()
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bearer_matches(header: str | None, expected: str) -> bool:
    scheme, _, token = (header or "").partition(" ")
    return scheme.lower() == "bearer" and secrets.compare_digest(token.strip().encode(), expected.encode())


def needs_token(path: str) -> bool:
    return path not in OPEN_PATHS and path.startswith(PROTECTED_PREFIXES)


class TokenFirst:
    """Refuses a protected route without the bearer token before the body is read or parsed."""

    def __init__(self, app: ASGIApp, expected: str | None):
        self.app = app
        self.expected = expected

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and self.expected and needs_token(scope["path"])
                and not bearer_matches(Headers(scope=scope).get("authorization"), self.expected)):
            await UNAUTHORIZED.response()(scope, receive, send)
            return
        await self.app(scope, receive, send)
