"""The LangGraph state machine that answers questions (see graph.py for the wiring)."""
