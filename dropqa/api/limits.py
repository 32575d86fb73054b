"""A request whose declared ``Content-Length`` is over its limit is refused before anything reads
it, with the API's JSON error. (FastAPI's own ``max_body_size`` still counts the bytes of bodies
without a length, and answers those with the same JSON through the error handlers.)"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from dropqa.api.errors import error_body


class DeclaredSizeLimit:
    def __init__(self, app: ASGIApp, *, default_limit: int, limits: dict[str, int]):
        self.app = app
        self.default_limit = default_limit
        self.limits = limits  # path → limit, for the few routes that take big bodies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            declared = Headers(scope=scope).get("content-length", "")
            limit = self.limits.get(scope["path"], self.default_limit)
            if declared.isdigit() and int(declared) > limit:
                response = JSONResponse(error_body("too_large", f"the request body is larger than {limit} bytes"),
                                        status_code=413, headers={"Connection": "close"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
