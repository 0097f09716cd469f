"""How the guard behaves: ``[mcp.guard]`` in the project config, a server's own
``[mcp.servers.NAME.guard]`` over it, and the command line over both.

Every key is optional; a missing key keeps the default of :class:`GuardSettings`. The keys
are those of the class (``closed``, ``max_retries``, ``observe``, ``on_drift``,
``on_bad_result``, ``missing_key``, ``restarts``, ``list_timeout``), plus ``rules`` and
``lock`` (paths relative to the config file), which the command resolves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from jsoncontract.settings import Config


class OnDrift(StrEnum):
    """What becomes of a tool whose definition differs from the lock."""

    HIDE = "hide"  # left out of tools/list; a call of it is answered as an unknown tool
    FLAG = "flag"  # listed, marked in its _meta; its calls are checked against the lock
    PASS = "pass"  # listed as the server says; the drift is recorded only


class OnBadResult(StrEnum):
    """What becomes of ``structuredContent`` that breaks the tool's ``outputSchema``."""

    PASS = "pass"  # delivered as it is (the finding is recorded)
    MASK = "mask"  # the structured content is left out; the text content stays
    ERROR = "error"  # the whole result becomes an error result with a stable code


class MissingKey(StrEnum):
    """What becomes of a write without an idempotency key, when its tool takes one."""

    REFUSE = "refuse"
    ALLOW = "allow"


#: The config keys the command resolves itself (paths), beside the settings' own.
PATH_KEYS: Final = ("rules", "lock")


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """The guard's policy.

    ``closed``: every object schema is read as ``additionalProperties: false``;
    ``max_retries``: identical failing retries of a call answered before the guard stops
    the next one (the answer to the last allowed one already says to stop);
    ``observe``: enforce nothing, forward everything, record every finding;
    ``on_drift``, ``on_bad_result``, ``missing_key``: see their enums;
    ``restarts``: how many times a stdio server that exits while the host is still
    connected is started again (its handshake replayed) before the guard gives up;
    ``list_timeout``: seconds the guard waits for the tool list it asks the server for
    before it answers the calls waiting on it with an error.
    """

    closed: bool = False
    max_retries: int = 2  # check's [session] identical_retries default: the same budget
    observe: bool = False
    on_drift: OnDrift = OnDrift.HIDE
    on_bad_result: OnBadResult = OnBadResult.ERROR
    missing_key: MissingKey = MissingKey.REFUSE
    restarts: int = 3
    list_timeout: float = 10.0

    @classmethod
    def from_table(
        cls, table: Mapping[str, Any], base: GuardSettings | None = None
    ) -> GuardSettings:
        """``base`` (default: the defaults) with the keys of a ``[mcp.guard]`` table
        (validated by the config schema)."""
        settings = base or cls()
        changes: dict[str, Any] = {}
        for item in fields(cls):
            if item.name in table:
                value = table[item.name]
                kind = {
                    "on_drift": OnDrift,
                    "on_bad_result": OnBadResult,
                    "missing_key": MissingKey,
                }
                changes[item.name] = kind[item.name](value) if item.name in kind else value
        return replace(settings, **changes) if changes else settings

    def override(self, **given: Any) -> GuardSettings:
        """These settings with the command line's values (``None``: not given)."""
        changes = {name: value for name, value in given.items() if value is not None}
        return replace(self, **changes) if changes else self


def guard_tables(cfg: Config, server: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``[mcp.guard]`` table and the ``[mcp.servers.NAME.guard]`` table of ``server``
    (empty when absent)."""
    mcp = cfg.section("mcp")
    found = mcp.get("guard")
    common: dict[str, Any] = found if isinstance(found, dict) else {}
    own: Any = {}
    servers = mcp.get("servers")
    if server is not None and isinstance(servers, dict) and isinstance(servers.get(server), dict):
        own = servers[server].get("guard") or {}
    return dict(common), dict(own)


def guard_settings(cfg: Config, server: str | None = None, **given: Any) -> GuardSettings:
    """The settings of a guard in front of ``server`` (its config name, if it has one):
    the defaults, ``[mcp.guard]``, the server's ``guard`` table, then ``given`` (the command
    line; ``None`` values are not given)."""
    common, own = guard_tables(cfg, server)
    settings = GuardSettings.from_table(own, GuardSettings.from_table(common))
    return settings.override(**given)
