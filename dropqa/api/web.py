"""The web page: static files served by the same app, no build step, no CDN.

The page is a few vanilla ES modules and one stylesheet under ``static/``; it talks to
the JSON API with ``fetch`` (bearer token from localStorage when the server needs one).
Static files need no token: they contain no document data.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parent / "static"
# The page is small and changes with the package: always revalidate so an upgrade is seen at once.
NO_CACHE = {"Cache-Control": "no-cache"}


class _Static(StaticFiles):
    async def get_response(self, path, scope):  # type: ignore[no-untyped-def]
        response = await super().get_response(path, scope)
        response.headers.update(NO_CACHE)
        return response


def mount_web(app: FastAPI) -> None:
    """Serve the page at ``/`` and its assets under ``/static``."""
    index = STATIC / "index.html"

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(index, media_type="text/html; charset=utf-8", headers=NO_CACHE)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", _Static(directory=STATIC), name="static")
