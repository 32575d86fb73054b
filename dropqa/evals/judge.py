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

from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from dropqa.evals.suite import EvalItem
from dropqa.models import prompts
from dropqa.models.chat import ChatUnavailable, UnreadableReply, chat_providers, invoke_structured

VERDICTS = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}


class Verdict(BaseModel):
    """The judge's reply (``with_structured_output``)."""

    verdict: Literal["correct", "partial", "incorrect"]
    reason: str = Field(description="one sentence")


@dataclass
class Judgement:
    score: float | None
    verdict: str | None = None
    reason: str = ""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "score": self.score, "reason": self.reason, "error": self.error}


def judgement_of(verdict: Verdict) -> Judgement:
    return Judgement(VERDICTS[verdict.verdict], verdict.verdict, verdict.reason[:500])


class AnswerJudge:
    """Grades answers with chat models (the first that answers, with its fallbacks) replying with a
    :class:`Verdict`: :meth:`from_settings` or :meth:`for_chat_model` build one."""

    def __init__(self, providers: list[tuple[str, Any]], model: str):
        self.providers = providers
        self.model = model

    @classmethod
    def for_chat_model(cls, chat_model: Any, model: str) -> AnswerJudge:
        return cls([(model, chat_model)], model)

    @classmethod
    def from_settings(cls, settings: Any) -> AnswerJudge | None:
        """The configured chat model (with its fallbacks), or None offline."""
        providers = chat_providers(settings.models)
        return cls(providers, settings.models.chat.model) if providers else None

    @staticmethod
    def applies(item: EvalItem, error: str | None) -> bool:
        return not item.no_answer and bool(item.answers) and not error

    def judge(self, item: EvalItem, answer: str) -> Judgement:
        text = prompts.fill("dropqa.evals.prompts", "judge.md", {
            "question": item.question, "expected": "\n".join(f"- {a}" for a in item.answers),
            "notes": item.notes or "", "answer": answer.strip() or "(empty answer)"})
        try:
            verdict, _ = invoke_structured(self.providers, [HumanMessage(content=text)], Verdict)
        except UnreadableReply as exc:
            return Judgement(None, error=f"unreadable verdict: {exc.reason}"[:300])
        except ChatUnavailable as exc:  # the judge is optional: a failed call is recorded, not scored
            return Judgement(None, error=str(exc)[:300])
        return judgement_of(verdict)
