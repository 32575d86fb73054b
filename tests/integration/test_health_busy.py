"""Health answers when the store is too busy to count: a monitor polling /api/health under load gets the
health body (the queue depth unknown), never a 503 'busy' error in its place."""

from __future__ import annotations

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dropqa.api.errors import install_error_handlers
from dropqa.api.routers import health

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def settings(database_url: str, tmp_path_factory: pytest.TempPathFactory):
    from dropqa.config import Settings

    # a short statement timeout: a count blocked by a lock is cancelled within a second
    return Settings(data_dir=tmp_path_factory.mktemp("data"), database_url=database_url,
                    database={"statement_timeout_ms": 500})


def test_health_answers_while_a_count_runs_past_the_statement_timeout(services):
    app = FastAPI()
    app.state.services = services
    install_error_handlers(app)
    app.include_router(health.router)
    client = TestClient(app, raise_server_exceptions=False)
    assert client.get("/api/health").json()["queue"]["depth"] == 0
    with psycopg.connect(services.db.url) as locker:  # holds the jobs table: the queue count waits, then is cancelled
        locker.execute("LOCK TABLE ingestion_jobs IN ACCESS EXCLUSIVE MODE")
        r = client.get("/api/health")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "ok" and body["database"]["ok"] and body["queue"]["depth"] is None
    assert client.get("/api/health").json()["queue"]["depth"] == 0  # counted again once the store is free
