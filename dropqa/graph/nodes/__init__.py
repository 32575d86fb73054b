"""One module per graph node; each is a plain function ``(state, runtime) -> update``."""
