"""``jsoncontract mcp guard``: the contract enforced in line, between a host and a server."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jsoncontract.cli.mcp.options import (
    EnvOpt,
    HeaderOpt,
    HostConfigOpt,
    NameOpt,
    ProxyOptions,
    ServerArg,
    ServerOptions,
    split_server,
)
from jsoncontract.cli.options import (
    ConfigOpt,
    ContextOpt,
    NoConfigOpt,
    RulesOpt,
    grouped,
    note,
    quiet_sdk_logs,
    warn,
)

if TYPE_CHECKING:
    from jsoncontract.live.guard.gate import Guard
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.trace import TraceWriter
    from jsoncontract.settings import Config

    DriftChoice = str
    BadResultChoice = str
    MissingKeyChoice = str
else:
    from jsoncontract.live.guard.settings import MissingKey, OnBadResult, OnDrift

    DriftChoice = OnDrift
    BadResultChoice = OnBadResult
    MissingKeyChoice = MissingKey


# fmt: off
@grouped
def guard_cli(
    server: ServerArg = None,
    *,
    rules: RulesOpt = None,
    lock: Annotated[Path | None, typer.Option(
        help="A lock written by mcp pin: calls are checked against the pinned definitions, "
        "and tools that drifted from them are hidden or flagged (--on-drift).",
        dir_okay=False, show_default=False)] = None,
    closed: Annotated[bool | None, typer.Option(
        "--closed/--open", help="Read every object schema as additionalProperties: false "
        "(for servers whose schemas are open).", show_default=False)] = None,
    max_retries: Annotated[int | None, typer.Option(
        help="Identical failing retries of a call answered before the guard stops the next "
        "one; the answer to the last says to stop and ask the user (default 2).",
        min=0, show_default=False)] = None,
    observe: Annotated[bool | None, typer.Option(
        "--observe/--enforce", help="Shadow mode: enforce nothing, forward everything, "
        "record every finding in the trace.", show_default=False)] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="The trace to append to (an mcp-trace: every frame, every "
        "decision, the tool list enforced; check reads it without --tools).",
        dir_okay=False, show_default=False)] = None,
    on_drift: Annotated[DriftChoice | None, typer.Option(
        help="A tool that drifted from --lock: hide it from tools/list (default), flag it in "
        "its _meta, or pass it.", show_default=False)] = None,
    on_bad_result: Annotated[BadResultChoice | None, typer.Option(
        help="structuredContent that breaks the outputSchema: replace the result with an "
        "error (default), mask (drop the structured content), or pass it.",
        show_default=False)] = None,
    missing_key: Annotated[MissingKeyChoice | None, typer.Option(
        help="A write without an idempotency key, when its tool takes one: refuse (default) "
        "or allow.", show_default=False)] = None,
    restarts: Annotated[int | None, typer.Option(
        help="How many times a stdio server that exits while the host is connected is "
        "started again (default 3).", min=0, show_default=False)] = None,
    context: ContextOpt = None,
    proxy: ProxyOptions,
    header: HeaderOpt = None,
    env: EnvOpt = None,
    name: NameOpt = None,
    mcp_config: HostConfigOpt = None,
    config: ConfigOpt = None,
    no_config: NoConfigOpt = False,
) -> int:
    # fmt: on
    """Enforce the contract in line: every tools/call is checked (envelope, parse, schema,
    business rules, idempotency) before it reaches the server, and every result (secrets,
    stack traces, output schema) before it reaches the host.

    Put it in the host's config in place of the server command:
    jsoncontract mcp guard -o trace.jsonl -- COMMAND ARGS...  A call that fails is
    answered by the guard, as the negotiated protocol version prescribes, and never reaches
    the server. For HTTP servers: --listen 127.0.0.1:PORT --upstream URL.
    """
    from jsoncontract.config import load_config
    from jsoncontract.errors import UsageError
    from jsoncontract.live.server import safe_url

    upstream = proxy.http_upstream(server)
    cfg = load_config(config, discover=not no_config)
    reach = ServerOptions(header=header, env=env, name=name, mcp_config=mcp_config)
    if upstream is not None:
        spec = reach.resolve([upstream], [], cfg)
    else:
        spec = reach.resolve(*split_server(server), cfg)
        if not spec.command:
            raise UsageError(f"{spec.label} is an HTTP server: guard it with --listen "
                             f"127.0.0.1:PORT --upstream {spec.endpoint}")
    guard = _guard(
        cfg, spec, rules=rules, lock=lock, context=context,
        given={
            "closed": closed, "max_retries": max_retries, "observe": observe,
            "on_drift": on_drift, "on_bad_result": on_bad_result, "missing_key": missing_key,
            "restarts": restarts,
        },
    )  # fmt: skip
    writer = _writer(output, spec, guard)
    from jsoncontract.live.guard.session import GuardSession

    try:
        if upstream is not None:
            from jsoncontract.live.guard.http import guard_http

            def ready(url: str) -> None:
                note(f"guarding {safe_url(upstream)} at {url}")
                sys.stderr.flush()

            quiet_sdk_logs()
            return guard_http(guard, upstream, str(proxy.listen), writer=writer, say=note,
                              on_ready=ready, headers=dict(spec.headers),
                              max_frame=proxy.frame_bytes)
        from jsoncontract.live.guard.stdio import guard_stdio

        session = GuardSession(guard, writer=writer, say=note)
        return guard_stdio(spec, session, on_message=note, max_frame=proxy.frame_bytes)
    finally:
        guard.close()
        if writer is not None:
            writer.close()


def _guard(
    cfg: Config,
    spec: ServerSpec,
    *,
    rules: list[Path] | None,
    lock: Path | None,
    context: str | None,
    given: dict[str, Any],
) -> Guard:
    """The gate the command line and the config ask for."""
    from jsoncontract.business.settings import business_settings
    from jsoncontract.live.guard.gate import Guard
    from jsoncontract.live.guard.settings import guard_settings, guard_tables

    settings = guard_settings(cfg, spec.name, **given)
    common, own = guard_tables(cfg, spec.name)
    table = {**common, **own}
    if rules is None and "rules" in table:
        rules = cfg.paths(list(table["rules"]))
    if lock is None and "lock" in table:
        lock = cfg.root / str(table["lock"])
    business = business_settings(cfg, rules=rules, context=context)
    guard = Guard(
        rules=business.rules, lock=lock, server=spec.name, settings=settings, config=cfg,
        context=business.context, label=spec.label,
    )  # fmt: skip
    warn(guard.warnings)
    return guard


def _writer(output: Path | None, spec: ServerSpec, guard: Guard) -> TraceWriter | None:
    """The trace, its first lines saying what guarded it."""
    if output is None:
        return None
    from jsoncontract.live.trace import TraceWriter

    writer = TraceWriter(output, server=spec.endpoint, transport=spec.transport)
    settings = guard.settings
    writer.event(
        "guard",
        settings={
            "closed": settings.closed, "max_retries": settings.max_retries,
            "observe": settings.observe, "on_drift": settings.on_drift.value,
            "on_bad_result": settings.on_bad_result.value,
            "missing_key": settings.missing_key.value, "lock": guard.locked is not None,
        },
    )  # fmt: skip
    return writer
