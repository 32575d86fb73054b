"""Errors a user can act on, with a machine-readable code and the parameters of the message.

Any room may raise a :class:`CodedError`; the API returns ``{"error": {"code", "message", "params"}}``
with its ``status``, the web page translates ``code`` with ``params`` (one language per page), and
the CLI prints the English ``message``.
"""

from __future__ import annotations

from typing import Any


class CodedError(Exception):
    """An error with a ``code`` (a stable identifier, e.g. ``version_not_found``), the ``params``
    its message is made of, and the HTTP ``status`` the API answers with."""

    code = "bad_request"
    status = 400

    def __init__(self, message: str, **params: Any):
        super().__init__(message)
        self.params: dict[str, Any] = params
