"""Idempotency: writes that can be retried safely."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jsoncontract.lint.heuristics import folded, writes
from jsoncontract.lint.rule import ALL, Family, Issue, ToolRule, by_profile
from jsoncontract.model import Severity
from jsoncontract.pointer import escape_pointer_token

if TYPE_CHECKING:
    from jsoncontract.lint.context import ToolCtx

W = Severity.WARNING


class WriteToolWithoutIdempotencyKey(ToolRule):
    """## What it does
    Finds write tools whose arguments have no required idempotency key
    (`idempotency_key`, `request_id`, `client_token`, `dedupe_key`... compared without case
    or separators; configurable under `[lint.idempotency] key_names`).

    A tool writes when its MCP annotations say `readOnlyHint: false`, when the
    configuration lists it under `write_tools`, or when its name starts or ends with a
    write verb (`create`, `update`, `delete`, `send`, `pay`, `refund`...), in that order.
    Tools that declare `idempotentHint: true` are trusted to be idempotent by nature.

    ## Why is this bad?
    Agents retry: after a timeout, after a streaming error, after the model loses track. A
    retried `create_payment` without a key is a second payment. With a key, the server can
    recognise the retry and return the first result, and `jsoncontract check` can flag a key
    reused with different arguments.

    ## Example
    ```json
    {"name": "create_refund", "input_schema": {"type": "object",
      "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
      "required": ["order_id", "amount"]}}
    ```

    ## Use instead
    ```json
    {"name": "create_refund", "input_schema": {"type": "object",
      "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"},
                     "idempotency_key": {"type": "string", "maxLength": 64}},
      "required": ["order_id", "amount", "idempotency_key"]}}
    ```

    ## References
    - Stripe API, "Idempotent requests": https://docs.stripe.com/api/idempotent_requests
    - MCP schema, `ToolAnnotations` (`readOnlyHint`, `idempotentHint`)
    """

    code = "JC110"
    name = "write-tool-without-idempotency-key"
    family = Family.IDEMPOTENCY
    summary = "A write tool has no required idempotency key"
    profiles = by_profile({ALL: W})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        does_write, why = writes(tool)
        if not does_write:
            return
        annotations = tool.contract.annotations or {}
        if annotations.get("idempotentHint") is True:
            return
        schema = tool.contract.input_schema
        props = schema.get("properties") if isinstance(schema, dict) else None
        props = props if isinstance(props, dict) else {}
        wanted = {folded(k) for k in tool.settings.idempotency.key_names}
        key = next((name for name in props if folded(name) in wanted), None)
        site = tool.site("input")
        if key is None:
            yield Issue(
                f"tool {tool.name!r} writes ({why}) but takes no idempotency key; a retried "
                "call writes twice",
                tool.member("name"),
                hint="add a required idempotency_key string parameter",
            )
            return
        required = schema.get("required")
        if isinstance(required, list) and key in required:
            return
        path = f"/properties/{escape_pointer_token(key)}"
        at = site.pointer(path) if site is not None else tool.member("name")
        yield Issue(
            f"idempotency key {key!r} of write tool {tool.name!r} is optional; a call without "
            "it cannot be recognised as a retry",
            at,
            keyword="required",
            hint=f"add {key!r} to required",
            schema_path="#" + path,
        )
