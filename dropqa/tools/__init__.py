"""Read-only tools over the store: search (keyword, full-text, semantic, hybrid) and browse."""
