"""deploy/: the compose file passes the compose tool's own validation, and says what the README says."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
REQUIRED = {"POSTGRES_PASSWORD": "pw", "DROPQA_API_TOKEN": "token"}


def _compose(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("docker-compose")
    if tool is None:
        pytest.skip("docker-compose is not installed (`make test` installs Debian's docker-compose when it can): "
                    "deploy/compose.yaml was not checked with the compose tool's `config` validation")
    clean = {k: v for k, v in os.environ.items() if k not in REQUIRED and not k.startswith("DROPQA_")}
    return subprocess.run([tool, "-f", str(COMPOSE), *args], env={**clean, **env}, capture_output=True, text=True,
                          timeout=120, check=False)


def test_compose_file_is_valid() -> None:
    r = _compose("config", env={**REQUIRED, "DROPQA_API_REPLICAS": "3", "DROPQA_WORKER_REPLICAS": "5"})
    assert r.returncode == 0, r.stderr
    config = yaml.safe_load(r.stdout)
    services = config["services"]
    assert services["api"]["deploy"]["replicas"] == 3 and services["worker"]["deploy"]["replicas"] == 5
    assert services["api"]["environment"]["DATABASE_URL"] == "postgresql://dropqa:pw@db:5432/dropqa"
    assert services["worker"]["environment"]["DATABASE_URL"] == services["api"]["environment"]["DATABASE_URL"]


def test_compose_refuses_to_start_without_a_password_and_a_token() -> None:
    r = _compose("config", "-q", env={"DROPQA_API_TOKEN": "token"})
    assert r.returncode != 0 and "POSTGRES_PASSWORD" in r.stderr
    r = _compose("config", "-q", env={"POSTGRES_PASSWORD": "pw"})
    assert r.returncode != 0 and "DROPQA_API_TOKEN" in r.stderr


def test_compose_file_shape() -> None:
    """What the README promises, checked without any tool: pgvector, stateless API servers without
    embedded workers, workers with only the database URL, one image for both."""
    config = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = config["services"]
    assert services["db"]["image"].startswith("pgvector/pgvector:")
    assert set(services) == {"db", "api", "worker", "lb"}
    common = config["x-dropqa"]
    assert common["environment"]["DROPQA_API__EMBEDDED_WORKERS"] == "0"
    assert common["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert services["worker"]["command"] == ["worker"]
    assert "volumes" not in services["api"] and "volumes" not in services["worker"]  # nothing kept on their disks
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert 'ENTRYPOINT ["dropqa"]' in dockerfile and "COPY dropqa ./dropqa" in dockerfile
    assert "proxy_buffering off" in (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
