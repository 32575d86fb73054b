"""The store: the only room that writes SQL. PostgreSQL + pgvector, embedded or external."""

from dropqa.store.db import Database
from dropqa.store.scope import Scope
from dropqa.store.server import DatabaseUnavailable

__all__ = ["Database", "DatabaseUnavailable", "Scope"]
