"""Bearer-token auth.

Listening on loopback needs no token; listening anywhere else refuses to start without
one (``dropqa serve``). When a token is configured, every route but ``/api/health``
(and the web page's static files, which hold no document data) requires
``Authorization: Bearer <token>`` — the API, ``/v1`` and ``/mcp`` alike.
"""

from __future__ import annotations

import ipaddress
import secrets

from fastapi import HTTPException, Request


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bearer_matches(header: str | None, expected: str) -> bool:
    scheme, _, token = (header or "").partition(" ")
    return scheme.lower() == "bearer" and secrets.compare_digest(token.strip().encode(), expected.encode())


def check_token(request: Request) -> None:
    expected: str | None = request.app.state.api_token
    if expected and not bearer_matches(request.headers.get("authorization"), expected):
        raise HTTPException(status_code=401, detail="missing or wrong bearer token",
                            headers={"WWW-Authenticate": "Bearer"})
