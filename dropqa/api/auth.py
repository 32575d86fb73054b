"""Who may call: the bearer token, API keys, and the open loopback server.

Listening on loopback needs no credential as long as none exists: no ``DROPQA_API_TOKEN`` and no API
key ever made (``dropqa keys create``). Listening anywhere else — a wildcard address included, which
listens on every interface — refuses to start without one (``dropqa serve``; an empty address and a
blank token are refused at start too). Once a token is set or a key exists, every route but
``/api/health`` (and the web page's static files, which hold no document data) requires
``Authorization: Bearer <token or key>`` — the API, ``/v1`` and ``/mcp`` alike.

:class:`KeyGate` is the one gate: the app's outermost check after the Host, made before anything reads
the request body, so a client without a valid credential learns nothing from validation errors. It
looks the key up on every request (a revoked key is refused from the next request on) and leaves the
:class:`~dropqa.api.access.Caller` on the request for the routes. What it guards is :func:`needs_token`
(a test holds every route to it).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from dropqa.api.access import LOCAL, TOKEN, Caller
from dropqa.api.errors import Problem, error_code
from dropqa.blocking import in_thread
from dropqa.services import Services
from dropqa.store import keys
from dropqa.store.server import DatabaseUnavailable

PROTECTED_PREFIXES = ("/api/", "/v1/", "/v1", "/mcp")
OPEN_PATHS = frozenset({"/api/health"})
UNAUTHORIZED = Problem("unauthorized", 401, "missing, wrong or revoked bearer token or API key",
                       headers={"WWW-Authenticate": "Bearer"})
CALLER = "dropqa_caller"  # where the gate leaves the caller in the ASGI scope's state


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


def bearer(header: str | None) -> str | None:
    """The credential of an ``Authorization: Bearer …`` header (``None`` for any other scheme)."""
    scheme, _, token = (header or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def needs_token(path: str) -> bool:
    return path not in OPEN_PATHS and path.startswith(PROTECTED_PREFIXES)


class Identify:
    """The caller a credential names, or ``None`` (401). Blocking: it reads the key table."""

    def __init__(self, token: str | None, services: Callable[[], Services]):
        self.token = token
        self.services = services
        self._keys_seen = False  # once a key was made, keys stay required (revoked ones count)

    def __call__(self, header: str | None) -> Caller | None:
        presented = bearer(header)
        if self.token and presented is not None and secrets.compare_digest(presented.encode(), self.token.encode()):
            return TOKEN
        svc = self.services()
        if presented is not None:
            row = keys.authenticate(svc.db, presented, svc.settings.api.key_touch_s)
            if row is not None:
                return Caller(name=row["name"], role=row["role"], via="key",
                              kb_ids=None if row["role"] == "admin" else frozenset(row["kb_ids"]))
        if self.token or self.keys_exist(svc):
            return None
        return LOCAL

    def keys_exist(self, svc: Services) -> bool:
        if not self._keys_seen:
            self._keys_seen = keys.any_key(svc.db)
        return self._keys_seen


class KeyGate:
    """Refuses a protected route without a valid credential before the body is read or parsed; leaves
    the caller in ``scope["state"]`` for the routes (:func:`dropqa.api.deps.get_caller`)."""

    def __init__(self, app: ASGIApp, identify: Identify):
        self.app = app
        self.identify = identify

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and needs_token(scope["path"]):
            header = Headers(scope=scope).get("authorization")
            try:
                caller = await in_thread(self.identify, header)  # the runs' pool: a client that leaves cancels it
            except DatabaseUnavailable as exc:
                await error_code(exc).response()(scope, receive, send)
                return
            if caller is None:
                await UNAUTHORIZED.response()(scope, receive, send)
                return
            scope.setdefault("state", {})[CALLER] = caller
        await self.app(scope, receive, send)
