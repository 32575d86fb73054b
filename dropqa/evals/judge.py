"""The optional LLM judge: ``answer_correctness`` when a chat model is configured.

``answer_accuracy`` asks whether the answer *contains* one of the expected short strings — fine
for extractive answers, blind to a long-form answer that says "twelve thousand units" or that
gives one of the two facts a multi-hop question needs. The judge reads the question, the
expected answers, the grader notes and the system's whole answer, and says ``correct`` (1.0),
``partial`` (0.5) or ``incorrect`` (0.0), with a one-sentence reason. It grades every answerable
item whose question ran without an error.

Offline (no chat model) there is no judge: the key is absent from the report, never estimated.
A judge call that fails or returns something unreadable leaves that item's score ``None`` with
the error recorded — it is not counted as wrong, nor as right.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import Any

from dropqa.evals.suite import EvalItem

VERDICTS = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}
_JSON = re.compile(r"\{.*\}", re.S)


@dataclass
class Judgement:
    score: float | None
    verdict: str | None = None
    reason: str = ""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "score": self.score, "reason": self.reason, "error": self.error}


def prompt_template() -> Template:
    return Template(resources.files("dropqa.evals.prompts").joinpath("judge.md").read_text("utf-8").strip())


def parse_verdict(text: str) -> Judgement:
    """The judge's reply → a judgement; unreadable replies are an error, not a score."""
    match = _JSON.search(text or "")
    try:
        data = json.loads(match.group(0)) if match else None
    except json.JSONDecodeError:
        data = None
    verdict = str(data.get("verdict", "")).strip().lower() if isinstance(data, dict) else ""
    if verdict not in VERDICTS:
        return Judgement(None, error=f"unreadable verdict: {(text or '')[:200]!r}")
    return Judgement(VERDICTS[verdict], verdict, str(data.get("reason") or "")[:500])


class AnswerJudge:
    """Grades answers with a chat model (any LangChain runnable taking messages)."""

    def __init__(self, chat: Any, model: str):
        self.chat = chat
        self.model = model
        self.template = prompt_template()

    @classmethod
    def from_settings(cls, settings: Any) -> AnswerJudge | None:
        """The configured chat model (with its fallbacks), or None offline."""
        from dropqa.models.chat import chat_with_fallbacks

        chat = chat_with_fallbacks(settings.models)
        return cls(chat, settings.models.chat.model) if chat is not None else None

    @staticmethod
    def applies(item: EvalItem, error: str | None) -> bool:
        return not item.no_answer and bool(item.answers) and not error

    def judge(self, item: EvalItem, answer: str) -> Judgement:
        from langchain_core.messages import HumanMessage

        text = self.template.safe_substitute(
            question=item.question, expected="\n".join(f"- {a}" for a in item.answers),
            notes=item.notes or "", answer=answer.strip() or "(empty answer)")
        try:
            reply = self.chat.invoke([HumanMessage(content=text)])
        except Exception as exc:  # the judge is optional: a failed call is recorded, not scored
            return Judgement(None, error=f"{type(exc).__name__}: {exc}"[:300])
        content = reply.content if isinstance(reply.content, str) else json.dumps(reply.content)
        return parse_verdict(content)
