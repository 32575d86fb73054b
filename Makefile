# DropQA — what the README tells people to type.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: run test lint eval bench studio clean-data help

help:
	@echo "make run    - install, index ./examples into the embedded database, serve on 127.0.0.1:8000"
	@echo "make test   - install with test extras, run unit + integration + e2e tests"
	@echo "make lint   - ruff"

$(BIN)/dropqa: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	@touch $@

$(VENV)/.test-installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $(BIN)/dropqa $@

run: $(BIN)/dropqa
	$(BIN)/dropqa run examples/corpus --host 127.0.0.1 --port 8000

test: $(VENV)/.test-installed
	$(BIN)/ruff check dropqa tests
	$(BIN)/pytest -q -p no:cacheprovider tests

lint: $(VENV)/.test-installed
	$(BIN)/ruff check dropqa tests

studio: $(BIN)/dropqa
	$(BIN)/pip install -q -e '.[studio]'
	$(BIN)/langgraph dev --no-browser

eval: $(BIN)/dropqa
	@if [ -d ../shared ]; then \
		$(BIN)/dropqa eval ../shared/samples/golden.yaml --corpus ../shared/samples/corpus --out eval-report; \
	else \
		echo "../shared not found: run e.g. '$(BIN)/dropqa eval evals/golden_en.yaml --corpus evals/corpus_en --out eval-report'"; \
	fi
