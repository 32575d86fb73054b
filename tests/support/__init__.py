"""Helpers shared by tests: a scripted OpenAI-compatible HTTP server (no mocks of the client)."""

from tests.support.scripted_openai import ScriptedOpenAI

__all__ = ["ScriptedOpenAI"]
