"""The ``default`` knowledge base and its scope, for tests that read or write one base only."""

from dropqa.store.bases import DEFAULT_KB
from dropqa.store.scope import Scope

DEFAULT = Scope(kbs=(DEFAULT_KB,))

__all__ = ["DEFAULT", "DEFAULT_KB"]
