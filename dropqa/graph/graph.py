"""The answering graph — wiring only. Reading this file tells the whole control flow.

    START → retrieve → quality_check ─sufficient─► answer ─► finalize → END
                            └──────insufficient──► abstain ─┘

The agent loop (think → act → evaluate → adapt, verify) plugs into the
insufficient branch (see the agent-loop issue); until then the insufficient
branch answers plainly that the evidence is not enough.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from dropqa.graph.context import Context
from dropqa.graph.nodes.answer import abstain, answer
from dropqa.graph.nodes.finalize import finalize
from dropqa.graph.nodes.quality import quality_check, route_quality
from dropqa.graph.nodes.retrieve import retrieve
from dropqa.graph.state import InputState, OutputState, State


def build_graph() -> StateGraph:
    builder = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    builder.add_node("retrieve", retrieve)
    builder.add_node("quality_check", quality_check)
    builder.add_node("answer", answer)
    builder.add_node("abstain", abstain)
    builder.add_node("finalize", finalize)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "quality_check")
    builder.add_conditional_edges("quality_check", route_quality, ["answer", "abstain"])
    builder.add_edge("answer", "finalize")
    builder.add_edge("abstain", "finalize")
    builder.add_edge("finalize", END)
    return builder


graph = build_graph().compile(name="dropqa")
