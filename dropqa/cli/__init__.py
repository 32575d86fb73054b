"""The ``dropqa`` command: index, ask, docs, serve, run, worker, watch, mcp, gc, eval, kb, keys, db.

One module per command family; this one only builds the Typer app (the console script
``dropqa = "dropqa.cli:app"``) and lists its commands, in the order ``dropqa --help`` shows them."""

from __future__ import annotations

from typing import Annotated

import typer

from dropqa.cli import ask, bases, db, index, keys, process, serve, worker
from dropqa.cli import eval as eval_suite

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="DropQA — ask questions about your documents, with cited answers.")


@app.callback()
def main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="log more")] = False) -> None:
    process.configure_logging(verbose)
    process.end_on_signals()


app.command()(index.index)
app.command()(ask.ask)
app.command()(index.docs)
app.command()(serve.serve)
app.command()(serve.run)
app.command()(worker.worker)
app.command()(worker.watch)
app.command("mcp")(serve.mcp_stdio)
app.command()(db.gc)
app.command("eval")(eval_suite.eval_)
app.add_typer(bases.app, name="kb")
app.add_typer(keys.app, name="keys")
app.add_typer(db.app, name="db")
