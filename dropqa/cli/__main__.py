"""``python -m dropqa.cli``: the ``dropqa`` command."""

from dropqa.cli import app

app()
