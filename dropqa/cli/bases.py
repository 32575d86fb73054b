"""``dropqa kb …``: knowledge bases — create, list, rename, delete (with all of its documents)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from dropqa.cli.opening import coded, console, err, load_settings, open_database

app = typer.Typer(no_args_is_help=True, help="Knowledge bases: each document belongs to one; `default` always "
                  "exists. Keys (`dropqa keys`) name the bases they may use.")


@app.command("create")
def create(name: Annotated[str, typer.Argument(help="letters (any script), digits, '_', '.', '-'")]) -> None:
    """Make a knowledge base; then `dropqa index --kb NAME PATH` fills it."""
    from dropqa.store import bases

    db = open_database(load_settings())
    try:
        row = coded(lambda: bases.create(db, name))
    finally:
        db.close()
    console.print(f"created knowledge base {row['name']}", markup=False, highlight=False)


@app.command("list")
def list_(as_json: Annotated[bool, typer.Option("--json", help="one JSON array")] = False) -> None:
    """The knowledge bases with their live document counts."""
    from dropqa.store import bases

    db = open_database(load_settings())
    try:
        rows = bases.list_bases(db)
    finally:
        db.close()
    if as_json:
        sys.stdout.write(json.dumps([{"name": r["name"], "id": str(r["id"]), "documents": r["document_count"],
                                      "created_at": r["created_at"].isoformat()} for r in rows],
                                    ensure_ascii=False) + "\n")
        return
    if not console.is_terminal:
        for r in rows:
            sys.stdout.write(f"{r['name']}\t{r['document_count']} document(s)\t{r['id']}\n")
        return
    table = Table(title=f"{len(rows)} knowledge base(s)")
    for col in ("name", "documents", "created", "id"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["name"], str(r["document_count"]), r["created_at"].strftime("%Y-%m-%d %H:%M"), str(r["id"]))
    console.print(table)


@app.command("rename")
def rename(old: Annotated[str, typer.Argument(help="its name now")],
           new: Annotated[str, typer.Argument(help="its new name")]) -> None:
    """Rename a knowledge base (`default` cannot be renamed); keys and documents keep it."""
    from dropqa.store import bases

    db = open_database(load_settings())
    try:
        row = coded(lambda: bases.rename(db, old, new))
    finally:
        db.close()
    console.print(f"renamed {old} to {row['name']}", markup=False, highlight=False)


@app.command("delete")
def delete(name: Annotated[str, typer.Argument(help="the base to delete")],
           yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask (needed when not on a terminal)")]
           = False) -> None:
    """Delete a knowledge base and everything of it in one transaction: documents, versions, stored file bytes
    nothing else names, topics, jobs, answers and conversations (`default` cannot be deleted)."""
    from dropqa.store import bases

    db = open_database(load_settings())
    try:
        found = bases.find(db, name)
        if found is None:
            coded(lambda: bases.delete(db, name))  # says "no knowledge base named …"
        if not yes:
            if not sys.stdin.isatty():
                err.print("[red]error:[/red] deleting a knowledge base cannot be undone; add --yes", highlight=False)
                raise typer.Exit(2)
            typer.confirm(f"delete knowledge base {found['name']} and its {found['document_count']} document(s)?",
                          abort=True)
        gone = coded(lambda: bases.delete(db, name))
    finally:
        db.close()
    console.print(f"deleted knowledge base {gone['name']}: {gone['documents']} document(s), {gone['versions']} "
                  f"version(s), {gone['topics']} topic(s), {gone['jobs']} job(s), {gone['answers']} answer(s); "
                  f"{gone['files_freed']} stored file(s) freed", markup=False, highlight=False)
