"""Beyond the tools: ``resources/read`` of the resources a server lists, and
``prompts/get`` of its prompts with realistic arguments.

A listed resource must be readable, and a listed prompt must be got with every required
argument given; either failing is a finding. A resource whose URI is on the web
(``http(s)://``), and a prompt that takes a URL, are tried only with
``--allow-open-world``: the server may fetch it. At most :data:`MAX_EACH` of each are
tried; a dry run plans them and sends none.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.live.probe.arguments import PLACEHOLDER
from jsoncontract.live.probe.model import ExtraCheck
from jsoncontract.model import Finding, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection
    from jsoncontract.live.probe.arguments import Seeds
    from jsoncontract.live.probe.model import ProbeSettings, ServerProbe
    from jsoncontract.live.wire import Reply

#: Resources read, and prompts got, at most per server.
MAX_EACH: Final = 20


async def probe_extras(conn: Connection, card: ServerProbe, settings: ProbeSettings) -> None:
    """Read the listed resources and get the listed prompts (planned only, in a dry run)."""
    from jsoncontract.live.catalog import list_catalog
    from jsoncontract.live.probe.arguments import Seeds

    seeds = Seeds([*settings.seeds, *card.server.seeds])
    resources = await list_catalog(conn, "resources")
    prompts = await list_catalog(conn, "prompts")
    card.findings.extend(resources.problems + prompts.problems)
    label = card.label
    for item in resources.named()[:MAX_EACH]:
        uri = item["uri"]
        web = uri.startswith(("http://", "https://"))
        if web and not settings.allow_open_world:
            card.extras.append(
                ExtraCheck(
                    "resources/read",
                    uri,
                    None,
                    "not read: a web resource the server may fetch; --allow-open-world reads it",
                )
            )
            continue
        if settings.dry_run:
            card.extras.append(ExtraCheck("resources/read", uri, None, "would read; not sent"))
            continue
        reply = await conn.request("resources/read", {"uri": uri})
        card.extras.append(_judge_read(uri, reply, label))
    for item in prompts.named()[:MAX_EACH]:
        name = item["name"]
        arguments, sources = prompt_arguments(item, seeds)
        if not settings.allow_open_world and _reaches_out(arguments):
            card.extras.append(
                ExtraCheck(
                    "prompts/get",
                    name,
                    None,
                    "not got: it takes a URL, which the server may fetch; --allow-open-world "
                    "gets it",
                    sources=sources,
                )
            )
            continue
        if settings.dry_run:
            card.extras.append(
                ExtraCheck("prompts/get", name, None, "would get; not sent", sources=sources)
            )
            continue
        reply = await conn.request("prompts/get", {"name": name, "arguments": arguments})
        guessed = sorted(k for k, v in sources.items() if v == PLACEHOLDER)
        check = _judge_prompt(name, reply, label, guessed)
        check.sources = sources
        card.extras.append(check)


def prompt_arguments(prompt: dict[str, Any], seeds: Seeds) -> tuple[dict[str, str], dict[str, str]]:
    """Every required argument of a prompt (prompt arguments are strings), each with where
    its value came from: a seed, an example in its description, a well-known name, else a
    placeholder."""
    from jsoncontract.live.probe.arguments import (
        DESCRIPTION,
        NAME,
        PLACEHOLDER,
        SEED,
        description_examples,
        well_known,
    )

    values: dict[str, str] = {}
    sources: dict[str, str] = {}
    listed = prompt.get("arguments")
    for argument in listed if isinstance(listed, list) else []:
        if not isinstance(argument, dict) or not isinstance(argument.get("name"), str):
            continue
        if argument.get("required") is not True:
            continue
        name = argument["name"]
        seed = seeds.find(str(prompt.get("name")), name)
        description = argument.get("description")
        examples = description_examples(description) if isinstance(description, str) else []
        known = well_known(name)
        if seed is not None:
            values[name] = seed.value if isinstance(seed.value, str) else str(seed.value)
            sources[name] = f"{SEED} {seed.origin}"
        elif examples:
            values[name] = examples[0]
            sources[name] = DESCRIPTION
        elif isinstance(known, str):
            values[name] = known
            sources[name] = NAME
        else:
            values[name] = f"example {name}"
            sources[name] = PLACEHOLDER
    return values, sources


def _reaches_out(arguments: dict[str, str]) -> bool:
    """Whether a prompt's arguments name a web address (getting it may fetch it)."""
    import re

    return any(
        re.search(r"(?i)(url|uri|link|href|address)", name) or value.startswith(("http:", "https:"))
        for name, value in arguments.items()
    )


def _failure(reply: Reply) -> str | None:
    from jsoncontract.live.wire import ReplyKind

    if reply.kind is ReplyKind.RESULT:
        return None
    return reply.answered()


def _judge_read(uri: str, reply: Reply, label: str) -> ExtraCheck:
    return _judged(
        "resources/read",
        uri,
        reply,
        "contents",
        Finding(
            codes.PROBE_RESOURCE_UNREADABLE,
            Severity.ERROR,
            f"resources/read of the listed resource {uri}",
            source=Source(label),
            hint="every resource resources/list names must be readable, or left out of the list",
        ),
        empty_fails=True,
    )


def _judge_prompt(name: str, reply: Reply, label: str, guessed: list[str]) -> ExtraCheck:
    """A prompt got: a failure is an error, or a warning when a value sent was a
    placeholder (the server may refuse the guess, not the prompt)."""
    message = f"prompts/get of the listed prompt {name!r} with its required arguments"
    hint = (
        "a prompt must render with any arguments its definition accepts; say in each "
        "argument's description what it expects"
    )
    if guessed:
        message += f" (placeholders for {', '.join(guessed)})"
        hint += f"; --seed {guessed[0]}=VALUE sends a real value"
    return _judged(
        "prompts/get",
        name,
        reply,
        "messages",
        Finding(
            codes.PROBE_PROMPT_FAILED,
            Severity.WARNING if guessed else Severity.ERROR,
            message,
            source=Source(label),
            hint=hint,
        ),
        empty_fails=False,
    )


def _judged(
    method: str, item: str, reply: Reply, member: str, finding: Finding, *, empty_fails: bool
) -> ExtraCheck:
    """The check of one read or get: passed when the result holds a list at ``member``
    (not empty, with ``empty_fails``); else ``finding``, its message ended with what went
    wrong."""
    failed = _failure(reply)
    found = (reply.result or {}).get(member)
    if failed is None and not (isinstance(found, list) and (found or not empty_fails)):
        failed = f"was answered with a result without {member}"
    if failed is None:
        count = len(found) if isinstance(found, list) else 0
        return ExtraCheck(method, item, True, f"{count} {member[:-1]}(s)", reply.seconds)
    found_finding = replace(finding, message=f"{finding.message} {failed}")
    return ExtraCheck(method, item, False, failed, reply.seconds, findings=[found_finding])
