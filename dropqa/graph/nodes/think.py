"""``think``: choose the next tool calls — the chat model with the tools bound, or the offline
planner (``answering.policy``). Both produce an AIMessage with ``tool_calls`` so ``act`` is one ToolNode.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime

from dropqa.answering.policy import call_key, plan
from dropqa.graph.nodes.common import budget_spent, has_model, last_ai, model_deadline, step
from dropqa.graph.prompts import fill
from dropqa.graph.state import State
from dropqa.models.chat import ChatUnavailable, ainvoke_chat, text_of
from dropqa.services import Context
from dropqa.text.messages import render
from dropqa.tools.registry import model_tools


def _evidence_note(state: State, limit: int = 6) -> str:
    lines = [h.line(200) for h in state.hits[:limit]]
    return "\n".join(lines) or "—"


async def _model_step(svc: Any, state: State) -> tuple[AIMessage, dict[str, Any]]:
    lang = state.language
    system = fill("agent", lang, question=state.question, version=state.version or "latest")
    evaluation = state.evaluation
    hint = (f"\n\n[last evaluation] {evaluation.verdict}, best relevance {evaluation.top:.2f}; "
            f"suggested next: {state.strategy}") if evaluation else ""
    opening = HumanMessage(f"{state.question}\n\n[retrieved so far]\n{_evidence_note(state)}{hint}")
    turn = [m for m in state.messages if isinstance(m, AIMessage | ToolMessage)]
    return await ainvoke_chat(svc.chat_providers, [SystemMessage(system), opening, *turn], model_tools(),
                              deadline=model_deadline(state.started_at, svc.settings.agent))


async def think(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    svc = runtime.context.services
    cfg = svc.settings.agent
    lang = state.language
    iteration = state.iterations + 1
    update: dict[str, Any] = {"mode": "agent", "iterations": iteration}
    steps = []
    spent = budget_spent(state, cfg)
    if spent:
        update["messages"] = [AIMessage(content=render(lang, "adapt_budget", why=spent))]
        update["reasoning_trace"] = [step(state, "thought", render(lang, "adapt_budget", why=spent))]
        return update
    remaining = max(0, cfg.max_tool_calls - state.tool_calls)
    message: AIMessage | None = None
    if has_model(svc, state.degraded):
        try:
            message, usage = await _model_step(svc, state)
            update["usage"] = usage
            thought = text_of(message) or render(lang, "thought_model")
        except ChatUnavailable as exc:
            update["degraded"] = True
            steps.append(step(state, "thought", render(lang, "degraded", error=str(exc)[:300])))
    if message is None:
        intent = state.intent
        planned = plan(state.search_text, intent, state.strategy or "start", state.hits, list(state.bridge),
                       set(state.tried), state.version)
        thought = render(lang, planned.thought if planned.calls else "thought_none",
                         bridge=", ".join(state.bridge), hop=intent.first_hop)
        calls = [{"name": c["name"], "args": c["args"], "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
                 for c in planned.calls]
        message = AIMessage(content=thought, tool_calls=calls)
    calls = list(message.tool_calls)[:remaining]
    if len(calls) != len(message.tool_calls):
        message = AIMessage(content=message.content, tool_calls=calls, id=message.id,
                            usage_metadata=message.usage_metadata)
    steps.append({"step": iteration + 1, "type": "thought", "content": thought})
    for call in calls:
        steps.append({"step": iteration + 1, "type": "action", "content": call["name"], "tool": call["name"],
                      "arguments": dict(call["args"])})
    update.update({
        "messages": [message],
        "tool_calls": state.tool_calls + len([c for c in calls if c["name"] != "final_answer"]),
        "tried": [*state.tried, *(call_key(c["name"], c["args"]) for c in calls)],
        "reasoning_trace": steps,
    })
    return update


def route_think(state: State) -> Literal["act", "answer"]:
    """Tool calls → act. ``final_answer`` or nothing left to call → answer (then verify)."""
    message = last_ai(state)
    calls = list(message.tool_calls) if message else []
    if not calls or any(c["name"] == "final_answer" for c in calls):
        return "answer"
    return "act"
