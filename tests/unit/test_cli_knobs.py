"""The ``dropqa`` command's own settings: one knob per setting (the port, the API token), whichever way it is
written (environment or YAML file), and ``log_level`` setting what DropQA logs."""

from __future__ import annotations

import logging

import pytest
from pydantic import ValidationError

from dropqa.config import Settings, explain, get_settings


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in ("DROPQA_PORT", "DROPQA_API_TOKEN", "DROPQA_LOG_LEVEL", "DROPQA_CONFIG", "DROPQA_API__PORT",
                 "DROPQA_API__TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DROPQA_DATA_DIR", str(tmp_path / "data"))
    return monkeypatch


def _yaml(monkeypatch, tmp_path, text: str) -> None:
    cfg = tmp_path / "dropqa.yaml"
    cfg.write_text(text, encoding="utf-8")
    monkeypatch.setenv("DROPQA_CONFIG", str(cfg))


def _unknown(what: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings()
    assert f"{what}: unknown setting" in explain(caught.value)


def test_the_port_is_one_knob(clean_env, tmp_path):
    assert Settings().port == 8000
    clean_env.setenv("DROPQA_PORT", "8765")
    assert Settings().port == 8765
    _yaml(clean_env, tmp_path, "port: 8123\n")
    assert Settings().port == 8765  # the environment wins over the file, as for every setting
    clean_env.delenv("DROPQA_PORT")
    assert Settings().port == 8123
    _yaml(clean_env, tmp_path, "api:\n  port: 8123\n")  # the second knob is gone, and says so
    _unknown("api.port / DROPQA_API__PORT")
    clean_env.delenv("DROPQA_CONFIG")
    clean_env.setenv("DROPQA_API__PORT", "8123")
    _unknown("api.port / DROPQA_API__PORT")


def test_the_api_token_is_one_knob(clean_env, tmp_path):
    assert Settings().api_token is None
    clean_env.setenv("DROPQA_API_TOKEN", "from-env")
    assert Settings().api_token.get_secret_value() == "from-env"
    clean_env.delenv("DROPQA_API_TOKEN")
    _yaml(clean_env, tmp_path, "api_token: from-file\n")
    assert Settings().api_token.get_secret_value() == "from-file"
    _yaml(clean_env, tmp_path, "api:\n  token: from-file\n")
    _unknown("api.token / DROPQA_API__TOKEN")
    clean_env.delenv("DROPQA_CONFIG")
    clean_env.setenv("DROPQA_API__TOKEN", "from-env")
    _unknown("api.token / DROPQA_API__TOKEN")


def test_a_public_address_needs_the_token(clean_env):
    import typer

    from dropqa.cli.serve import _listen

    with pytest.raises(typer.Exit) as caught:
        _listen(Settings(), "0.0.0.0", 1)
    assert caught.value.exit_code == 2


@pytest.fixture
def dropqa_logger(clean_env):
    logger, root = logging.getLogger("dropqa"), logging.getLogger()
    level, root_level, root_handlers = logger.level, root.level, list(root.handlers)
    get_settings.cache_clear()
    yield clean_env, logger
    get_settings.cache_clear()
    logger.setLevel(level)
    root.setLevel(root_level)
    root.handlers[:] = root_handlers


@pytest.mark.parametrize(("value", "verbose", "expected"), [
    (None, False, logging.WARNING),  # the default: warnings, as before the knob was read
    (None, True, logging.INFO),      # --verbose means info
    ("debug", False, logging.DEBUG),
    ("DEBUG", True, logging.DEBUG),  # --verbose never makes it quieter
    ("error", False, logging.ERROR),
    ("error", True, logging.INFO),
])
def test_log_level_sets_what_dropqa_logs(dropqa_logger, value, verbose, expected):
    from dropqa.cli.process import configure_logging

    env, logger = dropqa_logger
    if value is not None:
        env.setenv("DROPQA_LOG_LEVEL", value)
    configure_logging(verbose)
    assert logger.level == expected


def test_a_wrong_log_level_is_a_configuration_error(dropqa_logger):
    env, logger = dropqa_logger
    env.setenv("DROPQA_LOG_LEVEL", "loud")
    with pytest.raises(ValidationError) as caught:
        Settings()
    assert "log_level / DROPQA_LOG_LEVEL" in explain(caught.value)
    from dropqa.cli.process import configure_logging

    level = logger.level
    configure_logging(False)  # leaves the error to the command, which reports it (exit 2)
    assert logger.level == level


def test_the_console_script_lists_every_command():
    import typer

    from dropqa.cli import app

    group = typer.main.get_command(app)
    assert list(group.commands) == ["index", "ask", "docs", "serve", "run", "worker", "watch", "mcp", "gc", "eval",
                                    "kb", "keys", "db"]
    assert list(group.commands["db"].commands) == ["status", "stop", "url", "sizes"]
