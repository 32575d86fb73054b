"""Every string a request carries — query, path, JSON body and form field, whatever the route — held to the
one rule of :mod:`dropqa.store.storable` before the route runs: ``?type=%00`` is a 422 ``invalid_request``
whose ``details`` name the field (``["query", "type"]``), never the database's own error.

It is the app's one global dependency, so it runs after the Host and token checks and the body limits
(the body is read through them) and before the route's own validation.
"""

from __future__ import annotations

import json

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.params import Form
from fastapi.routing import APIRoute

from dropqa.store.storable import refused

JSON_TYPES = ("application/json", "application/merge-patch+json")


async def refuse_unstorable_text(request: Request) -> None:
    """Raise :class:`RequestValidationError` (422) naming each query, path or body field PostgreSQL could
    not store."""
    found = [(("query", name), reason) for name, value in request.query_params.multi_items()
             for _, reason in refused(value)]
    found += [(("path", name), reason) for name, value in request.path_params.items() if isinstance(value, str)
              for _, reason in refused(value)]
    if request.headers.get("content-type", "").split(";")[0].strip().lower() in JSON_TYPES:
        try:
            body = json.loads(await request.body() or b"null")
        except ValueError:
            body = None  # not JSON: the route's own validation says so
        found += [(("body", *loc), reason) for loc, reason in refused(body)]
    elif _takes_a_form(request):  # the form FastAPI has parsed already (with the route's limits): its text fields
        form = await request.form()
        found += [(("body", name), reason) for name, value in form.multi_items() if isinstance(value, str)
                  for _, reason in refused(value)]
    if found:
        raise RequestValidationError([{"type": "value_error", "loc": list(loc), "msg": reason, "input": None}
                                      for loc, reason in found])


def _takes_a_form(request: Request) -> bool:
    """The route's body is a form (an upload's fields): FastAPI read it before any dependency ran. Other
    routes' bodies are never parsed as a form here."""
    route = request.scope.get("route")
    body = route.body_field if isinstance(route, APIRoute) else None
    return body is not None and isinstance(body.field_info, Form)
