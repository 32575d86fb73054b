"""``dropqa ask``: one question, answered with its sources (or the whole answer as JSON)."""

from __future__ import annotations

import functools
import json
import sys
from typing import Annotated

import typer

from dropqa.cli.opening import base_ids, console, err, load_settings, open_services


def ask(
    question: Annotated[str, typer.Argument(help="the question, in Chinese or English")],
    as_json: Annotated[bool, typer.Option("--json", help="print the full JSON answer")] = False,
    version: Annotated[int | None, typer.Option("--version", min=1, help="answer from version N")] = None,
    show_reasoning: Annotated[bool, typer.Option("--show-reasoning", help="print the reasoning trace")] = False,
    kb: Annotated[list[str] | None, typer.Option("--kb", help="answer from this knowledge base (repeat for "
                                                             "several; default: every base)")] = None,
) -> None:
    """Ask a question; the answer cites the documents' sections."""
    from pydantic import ValidationError

    from dropqa.api.limits import QuestionInput, validation_message
    from dropqa.runtime.run import ask as run_ask

    try:  # the limits every entry point shares, checked before the database is opened
        req = QuestionInput(question=question, version=version, kb=kb or [])
    except ValidationError as exc:
        err.print(f"[red]error:[/red] {validation_message(exc)}", markup=True, highlight=False)
        raise typer.Exit(2) from None
    svc = open_services(load_settings())
    try:
        kbs = base_ids(svc.db, req.kb, default_all=True)
        result = run_ask(svc, req.question, version=req.version, show_reasoning=True, kbs=kbs)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    finally:
        svc.close()
    if as_json:
        data = result.model_dump(mode="json")
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    # Wrapped to the width only on a terminal: piped or redirected, every line is whole — a breadcrumb, a
    # Chinese sentence — for whatever reads it (rich would cut them at 80 columns).
    wrap = console.is_terminal
    say = functools.partial(console.print, soft_wrap=not wrap)
    say(result.answer, markup=False, highlight=False)
    say(f"\n[dim]{result.mode} · confidence {result.confidence} · {result.latency_ms} ms[/dim]")
    for i, s in enumerate(result.sources[:5], start=1):
        page = f" (p.{s.page}{'≈' if s.page_estimated else ''})" if s.page else ""
        say(f"[{i}] {s.document_name} > {s.section}{page} · v{s.version} · {s.relevance:.2f}",
            markup=False, highlight=False)
    if show_reasoning:
        say("\n[bold]reasoning[/bold]")
        for st in result.reasoning_trace:
            say(f"  {st['step']}. {st['type']}: {st['content']}", markup=False, highlight=False)
