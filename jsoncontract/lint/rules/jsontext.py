"""The tool file as text (JSON or YAML): what a parser would hide."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jsoncontract.lint.rule import ALL, Family, FileRule, Issue, by_profile
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import FileCtx, ToolCtx

E = Severity.ERROR


class JsonDuplicateKey(FileRule):
    """## What it does
    Finds object members written twice in a tool file (`"type": "string"` and, three lines
    down, `"type": "integer"` in the same object).

    ## Why is this bad?
    RFC 8259 leaves the result undefined, and parsers disagree: most keep the last value,
    some the first, some reject the document. The provider, the MCP client and your server
    may each see a different schema, and a reviewer sees both.

    ## Example
    ```json
    {"type": "object", "properties": {"limit": {"type": "string", "type": "integer"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"limit": {"type": "integer"}}}
    ```

    ## References
    - RFC 8259, section 4 ("The names within an object SHOULD be unique")
    """

    code = "JC150"
    name = "json-duplicate-key"
    family = Family.HYGIENE
    summary = "A member name appears twice in one object of the tool file"
    profiles = by_profile({ALL: E})

    def check(self, file: FileCtx, active: frozenset[str]) -> Iterator[Issue]:
        if not file.index.repeated_keys:
            return
        for anomaly in file.anomalies:
            if anomaly.kind != "duplicate_key":
                continue
            yield Issue(
                f"{anomaly.detail}",
                anomaly.pointer,
                hint="keep one of the two members",
                tool=_owner(file, anomaly.pointer),
            )


def _owner(file: FileCtx, pointer: str) -> ToolCtx | None:
    best: ToolCtx | None = None
    for tool in file.tools:
        prefix = tool.pointer
        if (pointer == prefix or pointer.startswith(prefix + "/")) and (
            best is None or len(prefix) > len(best.pointer)
        ):
            best = tool
    return best
