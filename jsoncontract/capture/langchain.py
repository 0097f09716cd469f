"""LangChain messages, as ``model_dump_json`` writes them and as ``dumpd`` does.

An ``AIMessage`` dumped by pydantic is ``{"type": "ai", "content", "tool_calls": [{"name",
"args", "id", "type": "tool_call"}], "invalid_tool_calls": [{"name", "args", "id",
"error"}], ...}``: ``args`` of a call is the object LangChain decoded from the model's text
(a string there is the model's double encoding), and an invalid call keeps the raw text
that did not decode, which the parse gate classifies (a code fence, a truncation...). The
``dumpd`` form, which LangSmith exports hold, wraps the same members as
``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``. A
``ToolMessage`` (``type: "tool"``) is a result; a list of messages is a conversation.

A chat model's run, as LangChain's tracers record it and LangSmith exports it (``{"run_type":
"llm", "inputs", "outputs": {"generations": [[{"message": ...}]]}, "extra":
{"invocation_params": {"tools": [...]}}, "error"}``), holds the messages its generations
made, offered the tools of its invocation parameters; a run that failed without a message
(the SDK refused what the model wrote) is not read, and says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.capture.base import (
    answered_id,
    envelope,
    make_call,
    make_result,
    not_read,
    request_tools,
    text,
)
from jsoncontract.model import ArgumentsForm, Captured, Dialect, Finding, Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler

#: The message classes whose dumps hold calls or results.
_AI: Final = ("ai", "AIMessageChunk")
_CLASSES: Final = {"AIMessage": "ai", "AIMessageChunk": "ai", "ToolMessage": "tool"}


def _call(entry: Any, ctx: DocContext, out: list[Captured], where: str, *, invalid: bool) -> None:
    findings: list[Finding] = []
    if not isinstance(entry, dict):
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "a tool call must be an object"))
        entry = {}
    name = text(entry, "name")
    if not name:
        findings.append(envelope(codes.ENVELOPE_MALFORMED, "the tool call has no name"))
    args = entry.get("args")
    if invalid and type(args) is str:  # the text the model wrote, as it was
        arguments, form = args, ArgumentsForm.TEXT
    elif args is None:
        arguments, form = None, ArgumentsForm.MISSING
    else:
        arguments, form = args, ArgumentsForm.DECODED
    out.append(
        make_call(
            ctx,
            DIALECT,
            tool=name,
            call_id=entry.get("id"),
            arguments=arguments,
            form=form,
            node=where,
            args=where + "/args" if form is not ArgumentsForm.MISSING else None,
            findings=findings,
        )
    )


def ai_message(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """An ``AIMessage``: its ``tool_calls`` and ``invalid_tool_calls``, one turn."""
    outer = ctx.turn
    if outer is None:
        found = node.get("id")
        ctx.turn = found if isinstance(found, str) else ctx.turn_at(pointer)
    for member in ("tool_calls", "invalid_tool_calls"):
        entries = node.get(member)
        if entries is None:
            continue
        if not isinstance(entries, list):
            out.append(not_read(ctx, DIALECT, f"{member} is not a list", pointer))
            continue
        for i, entry in enumerate(entries):
            where = f"{pointer}/{member}/{i}"
            _call(entry, ctx, out, where, invalid=member == "invalid_tool_calls")
    ctx.turn = outer


def tool_message(
    node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = ""
) -> None:
    """A ``ToolMessage``: the result of the call it names."""
    call_id, findings = answered_id(node, "tool_call_id", "the ToolMessage", "tool call")
    status = node.get("status")
    out.append(
        make_result(
            ctx,
            DIALECT,
            call_id=call_id,
            node=pointer,
            content=node.get("content"),
            is_error=status == "error" if isinstance(status, str) else None,
            tool=text(node, "name"),
            message=node,
            findings=findings,
        )
    )


def dumped(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A ``dumpd`` constructor: its ``kwargs`` read as the message they build."""
    kwargs = node.get("kwargs")
    kind = _CLASSES.get(_class(node) or "")
    if not isinstance(kwargs, dict):
        out.append(not_read(ctx, DIALECT, "the constructor has no kwargs object", pointer))
    elif kind == "ai":
        ai_message(kwargs, ctx, out, pointer + "/kwargs")
    elif kind == "tool":
        tool_message(kwargs, ctx, out, pointer + "/kwargs")


def run(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A chat model's run: the messages of its generations, offered the tools of its
    invocation parameters."""
    extra = node.get("extra")
    parameters = extra.get("invocation_params") if isinstance(extra, dict) else None
    ctx = ctx.child("", offered=request_tools(parameters) if isinstance(parameters, dict) else None)
    outputs = node.get("outputs")
    generations = outputs.get("generations") if isinstance(outputs, dict) else None
    read = 0
    for i, batch in enumerate(generations if isinstance(generations, list) else ()):
        for j, generation in enumerate(batch if isinstance(batch, list) else ()):
            found = generation.get("message") if isinstance(generation, dict) else None
            if isinstance(found, dict):
                where = f"{pointer}/outputs/generations/{i}/{j}/message"
                read += 1
                if found.get("lc") is not None:
                    dumped(found, ctx, out, where)
                else:
                    ai_message(found, ctx, out, where)
    error = node.get("error")
    if not read and isinstance(error, str) and error:
        why = error.strip().splitlines()[0][:200]
        out.append(not_read(ctx, DIALECT, f"the run failed with no message: {why}", pointer))


def _class(node: dict[str, Any]) -> str | None:
    path = node.get("id")
    if isinstance(path, list) and path and isinstance(path[-1], str):
        return path[-1]
    return None


class LangChain:
    """The LangChain messages dialect (asked before OpenAI Chat, which would take a dumped
    ``AIMessage`` for an assistant message and read none of its calls)."""

    name: Final = Dialect.LANGCHAIN
    hop: Final = Hop.MODEL
    mark: Final = "lc"
    #: members without one of which :meth:`part` takes no object
    claims: Final = frozenset({"type", "run_type"})
    tools: Final = None

    def new_state(self) -> None:
        """Whole messages only: nothing to keep."""

    def whole(self, value: dict[str, Any], state: None) -> Handler | None:
        """A ``dumpd`` constructor of a message class."""
        if value.get("type") == "constructor" and (_class(value) or "").endswith("Message"):
            return dumped if (_class(value) or "") in _CLASSES else _nothing
        return None

    def part(self, value: dict[str, Any], state: None) -> Handler | None:
        """A message dumped by pydantic (``type`` ``ai`` or ``tool``), or a chat model's
        run."""
        kind = value.get("type")
        if kind in _AI and ("tool_calls" in value or "invalid_tool_calls" in value):
            return ai_message
        if kind == "tool" and "tool_call_id" in value:
            return tool_message
        if value.get("run_type") == "llm" and ("outputs" in value or "error" in value):
            return run
        return None


def _nothing(node: dict[str, Any], ctx: DocContext, out: list[Captured], pointer: str = "") -> None:
    """A message of a class that holds no call (a human or system message)."""


DIALECT: Final = LangChain()
