"""Schemathesis fuzzes every operation of the OpenAPI document against a real server: no 500s,
and responses (status codes, content types, bodies) match what the schema declares.
Kept small (a few generated cases per operation) so the whole module runs in well under a minute."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from tests.e2e.api_support import dropqa_server

pytestmark = pytest.mark.e2e
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          negative_data_rejection]


@pytest.fixture(scope="module")
def fuzz_server() -> Any:
    # no embedded worker: random uploads are queued, never parsed (parsing has its own tests)
    with dropqa_server(api__embedded_workers="0") as s:
        s.post("/api/documents/upload", files=[("files", ("notes.md", b"# Notes\n\nThe backup runs at 02:00.\n"))])
        yield s


def test_no_server_errors_and_responses_match_the_schema(fuzz_server: Any) -> None:
    """Every operation, valid and invalid inputs (schemathesis' pytest plugin does not run on this pytest,
    so the operations are driven through their hypothesis strategies directly)."""
    api = schemathesis.openapi.from_url(fuzz_server.base + "/openapi.json")
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 20
    failures: dict[str, str] = {}
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            if mode is GenerationMode.NEGATIVE and operation.path == "/api/documents/upload":
                continue  # a multipart file part is bytes whatever "type" the generator meant: no invalid form
            if operation.path == "/api/jobs/stream":
                continue  # without `ids` it streams until the client leaves; test_api.py covers it

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=4, deadline=None, database=None, derandomize=True,
                      suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
            def run(case: Any) -> None:
                case.call_and_validate(checks=CHECKS, timeout=30)

            try:
                run()
            except Unsatisfiable:  # no parameters to make invalid
                continue
            except (Exception, BaseExceptionGroup) as exc:  # collect all: one report names every failing operation
                failures[f"{operation.label} [{mode.value}]"] = str(exc)[:2000]
    assert not failures, "\n\n".join(f"{k}: {v}" for k, v in failures.items())
