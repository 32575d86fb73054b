"""Evaluation suites: ``dropqa eval GOLDEN.yaml --corpus DIR`` (suite, metrics, runner, report, command)."""
