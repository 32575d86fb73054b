"""``dropqa eval``: a golden suite run through the same graph, with its reports (:mod:`dropqa.evals.command`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def eval_(
    golden: Annotated[Path, typer.Argument(help="golden suite YAML")],
    corpus: Annotated[Path, typer.Option("--corpus", help="folder with the suite's documents")],
    out: Annotated[Path, typer.Option("--out", help="where report.json / report.html go")] = Path("eval-report"),
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="first N questions")] = None,
    types: Annotated[str | None, typer.Option("--types", help="comma-separated question types")] = None,
    reuse: Annotated[bool, typer.Option("--reuse", help="use the configured store, not a fresh one")] = False,
    kb: Annotated[str | None, typer.Option("--kb", help="index into and ask of this knowledge base (made when "
                                                         "missing; default: default)")] = None,
) -> None:
    """Run a golden suite: index the corpus into a fresh store, ask every question, write reports."""
    from dropqa.evals.command import eval_command

    raise typer.Exit(eval_command(golden, corpus, out, limit=limit, types=types, reuse=reuse, kb=kb))
