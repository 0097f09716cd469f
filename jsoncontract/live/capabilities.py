"""What jsoncontract declares as an MCP client, and how it answers a server's requests.

A host declares capabilities (``roots``, ``sampling``, ``elicitation``) and a server that
sees them may ask for roots, a model's completion or the user's input, and shows the tools
that need them. A client that declares nothing sees less than a real host does. So the
client here declares all three by default and answers every such request with a canned,
declared answer, never a model or a person:

- ``roots/list``: the directories given with ``--root`` (as ``file://`` URIs), or none;
- ``sampling/createMessage``: a fixed assistant reply (``reply``), or a refusal
  (``decline``, JSON-RPC error -1 as the specification's example shows);
- ``elicitation/create``: a form filled in with values the requested schema itself
  suggests (``accept``), or ``decline``.

:class:`ClientProfile` is that choice; :class:`ClientAnswers` answers the requests (plain
JSON in, plain JSON out) and counts what it served, for the reports. The same answers go
to requests sent as JSON-RPC (every version before 2026-07-28) and to the input requests
of a 2026-07-28 ``InputRequiredResult``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from jsoncontract.errors import UsageError

#: The requests a server may send a client, by the capability that allows them.
REQUESTS: Final = {
    "roots/list": "roots",
    "sampling/createMessage": "sampling",
    "elicitation/create": "elicitation",
}
#: The text of the canned sampling reply.
SAMPLING_TEXT: Final = "This is a canned reply from jsoncontract, an MCP test client; no model ran."
#: The model a canned sampling reply names.
SAMPLING_MODEL: Final = "jsoncontract-canned"
#: The error code of a declined sampling request (the specification's example uses -1:
#: "User rejected sampling request").
DECLINED: Final = -1

Choice = Literal["reply", "decline", "off"]
ElicitChoice = Literal["accept", "decline", "off"]


@dataclass(frozen=True, slots=True)
class ClientProfile:
    """What the client declares, and how it answers.

    ``roots`` are directories (absolute paths); ``sampling`` is ``reply``, ``decline``
    or ``off`` (not declared); ``elicitation`` is ``accept``, ``decline`` or ``off``.
    ``roots_declared`` is whether the roots capability is declared at all.
    """

    roots: tuple[Path, ...] = ()
    roots_declared: bool = True
    sampling: Choice = "reply"
    sampling_text: str = SAMPLING_TEXT
    elicitation: ElicitChoice = "accept"

    @classmethod
    def none(cls) -> ClientProfile:
        """A client that declares no capability (as jsoncontract did before)."""
        return cls(roots_declared=False, sampling="off", elicitation="off")

    def declared(self) -> dict[str, Any]:
        """The ``capabilities`` object of ``initialize`` (and of the 2026-07-28 envelope)."""
        out: dict[str, Any] = {}
        if self.roots_declared:
            out["roots"] = {"listChanged": False}
        if self.sampling != "off":
            out["sampling"] = {}
        if self.elicitation != "off":
            out["elicitation"] = {"form": {}, "url": {}}
        return out

    def describe(self) -> str:
        """``roots (1: /srv/repo), sampling (canned reply), elicitation (accept)``, or
        ``none``."""
        parts = []
        if self.roots_declared:
            shown = ", ".join(str(r) for r in self.roots) or "none listed"
            parts.append(f"roots ({shown})")
        if self.sampling != "off":
            parts.append(f"sampling ({'canned reply' if self.sampling == 'reply' else 'decline'})")
        if self.elicitation != "off":
            parts.append(f"elicitation ({self.elicitation})")
        return ", ".join(parts) or "none"

    def to_dict(self) -> dict[str, Any]:
        """The profile in JSON reports."""
        return {
            "declared": sorted(self.declared()),
            "roots": [root.as_uri() for root in self.roots],
            "sampling": self.sampling,
            "elicitation": self.elicitation,
        }


def client_profile(
    *,
    roots: list[Path] | None = None,
    sampling: str = "reply",
    elicitation: str = "accept",
    none: bool = False,
    sampling_text: str | None = None,
) -> ClientProfile:
    """The profile the command line asks for.

    Raises:
        UsageError: a root that is not a directory, an unknown choice, or capabilities
            asked for together with ``none``.
    """
    if sampling not in ("reply", "decline", "off"):
        raise UsageError(f"--sampling {sampling!r}: choose reply, decline or off")
    if elicitation not in ("accept", "decline", "off"):
        raise UsageError(f"--elicitation {elicitation!r}: choose accept, decline or off")
    if none:
        if roots:
            raise UsageError("--no-capabilities declares no roots; drop --root or it")
        return ClientProfile.none()
    found: list[Path] = []
    for root in roots or ():
        if not root.is_dir():
            raise UsageError(f"--root {root}: not a directory")
        found.append(root.resolve())
    return ClientProfile(
        roots=tuple(found),
        sampling=sampling,  # type: ignore[arg-type]
        elicitation=elicitation,  # type: ignore[arg-type]
        sampling_text=sampling_text or SAMPLING_TEXT,
    )


@dataclass(slots=True)
class ClientAnswers:
    """Answers a server's requests as :attr:`profile` says, and counts them by method
    (:attr:`served`) and those refused because the capability was not declared
    (:attr:`undeclared`)."""

    profile: ClientProfile = field(default_factory=ClientProfile)
    served: Counter[str] = field(default_factory=Counter)
    undeclared: Counter[str] = field(default_factory=Counter)

    def answer(self, method: str, params: Any) -> tuple[str, dict[str, Any]]:
        """``("result", {...})`` or ``("error", {"code": .., "message": ..})`` for one
        request the server sent."""
        capability = REQUESTS.get(method)
        if capability is None:
            return "error", {"code": -32601, "message": "Method not found"}
        if capability not in self.profile.declared():
            self.undeclared[method] += 1
            return "error", {
                "code": -32600,
                "message": f"this client did not declare the {capability} capability",
            }
        self.served[method] += 1
        body = params if isinstance(params, dict) else {}
        if method == "roots/list":
            return "result", {"roots": [_root(path) for path in self.profile.roots]}
        if method == "sampling/createMessage":
            if self.profile.sampling == "decline":
                return "error", {"code": DECLINED, "message": "the user declined sampling"}
            return "result", {
                "role": "assistant",
                "content": {"type": "text", "text": self.profile.sampling_text},
                "model": SAMPLING_MODEL,
                "stopReason": "endTurn",
            }
        if self.profile.elicitation == "decline" or body.get("mode") == "url":
            return "result", {"action": "decline"}
        return "result", {"action": "accept", "content": form_values(body.get("requestedSchema"))}

    def report(self) -> dict[str, Any]:
        """The profile and what was served, for the JSON report."""
        out = self.profile.to_dict()
        out["served"] = dict(sorted(self.served.items()))
        if self.undeclared:
            out["undeclared"] = dict(sorted(self.undeclared.items()))
        return out

    def describe_served(self) -> str:
        """``roots/list 2, sampling/createMessage 1``, or empty."""
        return ", ".join(f"{m} {n}" for m, n in sorted(self.served.items()))


def _root(path: Path) -> dict[str, str]:
    return {"uri": path.as_uri(), "name": path.name or str(path)}


def form_values(schema: Any) -> dict[str, Any]:
    """Values for an elicitation form: each property's ``default``, else its first
    ``enum`` value, else a value of its type (a form's properties are flat primitives)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return {}
    out: dict[str, Any] = {}
    for name, node in properties.items():
        if not isinstance(node, dict):
            continue
        out[name] = _form_value(name, node)
    return out


def _form_value(name: str, node: dict[str, Any]) -> Any:
    if "default" in node:
        return node["default"]
    for key in ("enum", "oneOf", "anyOf"):
        options = node.get(key)
        if isinstance(options, list) and options:
            first = options[0]
            return first.get("const") if isinstance(first, dict) else first
    kind = node.get("type")
    if kind == "array":
        items = node.get("items")
        choices = _choices(items)
        least = node.get("minItems")
        return choices[: max(least if isinstance(least, int) else 1, 1)] if choices else []
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        low = node.get("minimum")
        return low if isinstance(low, int | float) else 1
    fmt = node.get("format")
    if fmt == "email":
        return "user@example.com"
    if fmt == "date":
        return "2024-01-15"
    if fmt == "date-time":
        return "2024-01-15T09:30:00Z"
    if fmt == "uri":
        return "https://example.com/"
    least = node.get("minLength")
    text = f"example {name}"
    return text + "x" * max(0, (least if isinstance(least, int) else 0) - len(text))


def _choices(items: Any) -> list[Any]:
    if not isinstance(items, dict):
        return []
    for key in ("enum", "anyOf", "oneOf"):
        options = items.get(key)
        if isinstance(options, list):
            return [o.get("const") if isinstance(o, dict) else o for o in options]
    return []


def sdk_callbacks(answers: ClientAnswers) -> dict[str, Any]:
    """The SDK session's callbacks for the requests a server sends: each answered by
    ``answers`` (plain JSON), and handed back to the SDK as its types."""
    import mcp_types as types

    def typed(kind: str, body: dict[str, Any], result_type: Any) -> Any:
        if kind == "error":
            return types.ErrorData.model_validate(body)
        return result_type.model_validate(body)

    def plain(params: Any) -> Any:
        return params.model_dump(by_alias=True, mode="json", exclude_none=True) if params else {}

    async def sampling(context: Any, params: Any) -> Any:
        kind, body = answers.answer("sampling/createMessage", plain(params))
        return typed(kind, body, types.CreateMessageResult)

    async def elicitation(context: Any, params: Any) -> Any:
        kind, body = answers.answer("elicitation/create", plain(params))
        return typed(kind, body, types.ElicitResult)

    async def roots(context: Any) -> Any:
        kind, body = answers.answer("roots/list", {})
        return typed(kind, body, types.ListRootsResult)

    return {
        "sampling_callback": sampling,
        "elicitation_callback": elicitation,
        "list_roots_callback": roots,
    }
