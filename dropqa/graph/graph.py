"""The answering graph — wiring only. Reading this file tells the whole control flow.

    START → retrieve → quality_check ─sufficient─► answer ─► verify ─► finalize → END
                            │                        ▲  ▲
                       insufficient                  │  └── synthesize ◄── read_document × N (Send)
                            ▼                        │                          ▲
                          think ─► act ─► evaluate ─► adapt ─answer────────────┘ (several documents)
                            ▲                           │
                            └──────── continue ─────────┘

``think`` is the chat model with the tools bound, or the offline planner; both emit
tool calls that ``act`` (one ToolNode) runs. ``think`` goes straight to ``answer``
when the model calls ``final_answer`` or when the budget is spent — the budget
(iterations, tool calls, tokens, seconds; Settings.agent) is checked by the graph.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import ToolNode

from dropqa.graph.nodes.adapt import adapt, route_adapt
from dropqa.graph.nodes.answer import answer
from dropqa.graph.nodes.evaluate import evaluate
from dropqa.graph.nodes.finalize import finalize
from dropqa.graph.nodes.quality import quality_check, route_quality
from dropqa.graph.nodes.readers import read_document, synthesize
from dropqa.graph.nodes.retrieve import retrieve
from dropqa.graph.nodes.think import route_think, think
from dropqa.graph.nodes.verify import verify
from dropqa.graph.state import InputState, OutputState, State
from dropqa.services import Context
from dropqa.tools.registry import agent_tools


def build_graph() -> StateGraph:
    """The graph's wiring."""
    builder = StateGraph(State, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    builder.add_node("retrieve", retrieve)
    builder.add_node("quality_check", quality_check)
    builder.add_node("think", think)
    builder.add_node("act", ToolNode(agent_tools(), handle_tool_errors=True))
    builder.add_node("evaluate", evaluate)
    builder.add_node("adapt", adapt)
    builder.add_node("read_document", read_document)
    builder.add_node("synthesize", synthesize)
    builder.add_node("answer", answer)
    builder.add_node("verify", verify)
    builder.add_node("finalize", finalize)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "quality_check")
    builder.add_conditional_edges("quality_check", route_quality, ["answer", "think", "read_document"])
    builder.add_conditional_edges("think", route_think, ["act", "answer"])
    builder.add_edge("act", "evaluate")
    builder.add_edge("evaluate", "adapt")
    builder.add_conditional_edges("adapt", route_adapt, ["think", "answer", "read_document"])
    builder.add_edge("read_document", "synthesize")
    builder.add_edge("synthesize", "verify")
    builder.add_edge("answer", "verify")
    builder.add_edge("verify", "finalize")
    builder.add_edge("finalize", END)
    return builder


# The one compiled graph: the API, the CLI, the evals and LangGraph Studio (langgraph.json) run it;
# conversations run a copy bound to a checkpointer (runtime.threads), not a second compilation.
graph = build_graph().compile(name="dropqa")
