"""``dropqa keys …``: API keys — create (shown once), list, revoke. The first admin key is made here, never
by an open route."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from dropqa.cli.opening import base_ids, coded, console, load_settings, open_database

app = typer.Typer(no_args_is_help=True, help="API keys: a name, a role (reader, editor, admin) and the knowledge "
                  "bases it may use; clients send `Authorization: Bearer <key>`.")


@app.command("create")
def create(
    name: Annotated[str, typer.Option("--name", help="what the key is for (unique among live keys)")],
    role: Annotated[str, typer.Option("--role", help="reader (ask and read), editor (also upload, re-index, "
                                                     "delete documents) or admin (also bases and keys)")],
    kb: Annotated[list[str] | None, typer.Option("--kb", help="a base the key may use (repeat for several; "
                                                             "readers and editors; an admin key uses every base)")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="print {name, role, kbs, key} as JSON (for scripts)")]
    = False,
) -> None:
    """Make a key and print it — once: only its SHA-256 is kept."""
    from dropqa.store import keys

    db = open_database(load_settings())
    try:
        ids = base_ids(db, kb) if kb else ()
        key, row = coded(lambda: keys.create(db, name, role, ids))
    finally:
        db.close()
    if as_json:
        sys.stdout.write(json.dumps({"name": row["name"], "role": row["role"], "kbs": list(row["kbs"]), "key": key},
                                    ensure_ascii=False) + "\n")
        return
    where = ", ".join(row["kbs"]) if row["kbs"] else "every base"
    console.print(f"key {row['name']} ({row['role']}, {where}):", markup=False, highlight=False)
    sys.stdout.write(key + "\n")
    console.print("keep it now: it is not stored and cannot be shown again", markup=False, highlight=False)


@app.command("list")
def list_(as_json: Annotated[bool, typer.Option("--json", help="one JSON array")] = False) -> None:
    """Every key (never the key itself): role, bases, when it was made and last used, revoked or not."""
    from dropqa.store import keys

    db = open_database(load_settings())
    try:
        rows = keys.list_keys(db)
    finally:
        db.close()

    def when(t) -> str:
        return t.strftime("%Y-%m-%d %H:%M") if t else "-"

    if as_json:
        sys.stdout.write(json.dumps([{"name": r["name"], "role": r["role"], "kbs": list(r["kbs"]),
                                      "prefix": r["key_prefix"], "created_at": r["created_at"].isoformat(),
                                      "last_used_at": r["last_used_at"].isoformat() if r["last_used_at"] else None,
                                      "revoked_at": r["revoked_at"].isoformat() if r["revoked_at"] else None}
                                     for r in rows], ensure_ascii=False) + "\n")
        return
    table = Table(title=f"{len(rows)} key(s)")
    for col in ("name", "role", "bases", "key", "created", "last used", "revoked"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(r["name"], r["role"], ", ".join(r["kbs"]) or "(every base)", r["key_prefix"] + "…",
                      when(r["created_at"]), when(r["last_used_at"]), when(r["revoked_at"]))
    console.print(table)


@app.command("revoke")
def revoke(name: Annotated[str, typer.Argument(help="the key's name")]) -> None:
    """Revoke a key: every request with it is refused from the next one on."""
    from dropqa.store import keys

    db = open_database(load_settings())
    try:
        coded(lambda: keys.revoke(db, name))
    finally:
        db.close()
    console.print(f"revoked key {name}", markup=False, highlight=False)
