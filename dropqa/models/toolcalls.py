"""Tool calls a model wrote as text, read back into ``tool_calls``.

Servers whose chat template has no tool calling (llama-cpp-python with ``--chat_format gemma``, many
Ollama and LM Studio models) pass the tools in the prompt or not at all, and the model answers with its
own dialect in the text. Recognised, only for the tools that were offered:

- JSON: ``{"name": …, "arguments": {…}}`` (or ``"parameters"`` / ``"args"`` / ``"input"``), the OpenAI
  shape ``{"function": {"name": …, "arguments": "…"}}``, ``{"tool_calls": [...]}``, or a list of them —
  bare, in a code fence, after ``[TOOL_CALLS]`` or inside ``<tool_call>…</tool_call>`` (Hermes, Qwen);
- Python calls: ``keyword_search(pattern="赵敏")`` in a ``tool_code`` / ``python`` fence (Gemma's dialect) or
  alone on a line, with literal keyword arguments.

A reply that already has ``tool_calls`` is left as it is; text that names no offered tool stays text.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage

_FENCE = re.compile(r"```[a-zA-Z_]*\s*(.*?)```", re.S)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_CALL_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(.*\)\s*$", re.M)


def _as_args(value: Any) -> dict[str, Any] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None


def _from_json(value: Any, names: set[str]) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(value, list):
        return [c for item in value for c in _from_json(item, names)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return _from_json(value["tool_calls"], names)
    if isinstance(value.get("function"), dict):
        return _from_json(value["function"], names)
    name = value.get("name") or value.get("tool") or value.get("tool_name")
    if not isinstance(name, str) or name not in names:
        return []
    raw = next((value[k] for k in ("arguments", "parameters", "args", "input") if k in value), {})
    args = _as_args(raw)
    return [(name, args)] if args is not None else []


def _json_values(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    values, i = [], 0
    while i < len(text):
        if text[i] in "[{":
            try:
                value, end = decoder.raw_decode(text[i:])
            except json.JSONDecodeError:
                i += 1
                continue
            values.append(value)
            i += end
        else:
            i += 1
    return values


def _from_python(text: str, names: set[str]) -> list[tuple[str, dict[str, Any]]]:
    calls = []
    for line in _CALL_LINE.finditer(text):
        try:
            tree = ast.parse(line.group(0).strip(), mode="eval")
        except SyntaxError:
            continue
        node = tree.body
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names):
            continue
        try:
            args = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except ValueError:
            continue
        calls.append((node.func.id, args))
    return calls


def calls_in(text: str, names: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """``(name, arguments)`` of each call of an offered tool written in ``text``, in order."""
    offered = set(names)
    if not offered or not text.strip():
        return []
    pieces = [m.group(1) for m in _TAGGED.finditer(text)] + [m.group(1) for m in _FENCE.finditer(text)]
    pieces.append(text.split("[TOOL_CALLS]", 1)[1] if "[TOOL_CALLS]" in text else text)
    for piece in pieces:
        found = [c for v in _json_values(piece) for c in _from_json(v, offered)]
        if found:
            return found
    for piece in pieces:
        found = _from_python(piece, offered)
        if found:
            return found
    return []


def recover_tool_calls(message: AIMessage, names: Sequence[str]) -> AIMessage:
    """``message`` with the tool calls its text holds as ``tool_calls`` (the text kept as its thought), or
    ``message`` itself when it has tool calls already or its text holds none."""
    if message.tool_calls or not isinstance(message.content, str):
        return message
    found = calls_in(message.content, names)
    if not found:
        return message
    calls = [{"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
             for name, args in found]
    return AIMessage(content=message.content, tool_calls=calls, id=message.id,
                     usage_metadata=message.usage_metadata, response_metadata=dict(message.response_metadata))
