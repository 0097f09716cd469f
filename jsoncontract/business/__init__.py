"""Business rules: the last gate of ``check``, for what a schema cannot say.

Declarative rules (CEL expressions, Kubernetes ``x-kubernetes-validations`` style) per tool,
reference data (CSV, JSON, SQLite) exposed to them by name, a ``context`` (caller, role,
tenant, now), Python functions for what CEL cannot express, and trace-level idempotency
checks over every call of a run.

    >>> from jsoncontract import check
    >>> from jsoncontract.business import load_business
    >>> gate = load_business(["fixtures/rules/shipping.toml"], context={"role": "support"})
    >>> report = check(["fixtures/business"], tools=["fixtures/tools"], business=gate)

See ``docs/business-rules.md`` for the rules format.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract.business.gate import BusinessRules
from jsoncontract.business.idempotency import IdempotencySettings

if TYPE_CHECKING:
    from jsoncontract.business.rules import RulesCheck, RulesError, RuleSet, check_rules, load_rules
    from jsoncontract.settings import Config
    from jsoncontract.tools.toolset import ToolSet

__all__ = [
    "BusinessRules",
    "IdempotencySettings",
    "RuleSet",
    "RulesCheck",
    "RulesError",
    "check_rules",
    "load_business",
    "load_rules",
]


def __getattr__(name: str) -> Any:
    # the rules loader (TOML, CEL, reference data) is only imported when rules are used
    if name in ("RulesCheck", "RulesError", "RuleSet", "check_rules", "load_rules"):
        from jsoncontract.business import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cost_budget(section: Mapping[str, Any], override: int | None = None) -> int:
    """The cost budget of one rule expression: ``override``, the ``[business]``
    ``cost_budget``, or the default."""
    from jsoncontract.business.cost import DEFAULT_BUDGET

    if override is not None:
        return override
    value = section.get("cost_budget")
    return int(value) if isinstance(value, int) else DEFAULT_BUDGET


def load_business(
    rules: Iterable[str | Path] | None = None,
    *,
    config: Config | None = None,
    context: Mapping[str, Any] | None = None,
    tools: ToolSet | None = None,
    show_values: bool = False,
    cost_budget_override: int | None = None,
) -> BusinessRules:
    """Build the business gate from rules files, the config and a context.

    Arguments:
        rules: rules files; when ``None``, those named by ``[business] rules`` in the config.
        config: the project configuration (its ``[business]`` section), if any.
        context: the context given on the command line; it overrides the config's keys.
        tools: the tool set: rules are checked against their tool's schema (fields,
            types, presence, cost), and rules for tools it does not define give a warning.
        show_values: quote sensitive-looking values in messages instead of hashing them.
        cost_budget_override: the cost budget of one expression, instead of the config's
            ``cost_budget`` (default 1,000,000 units).

    Raises:
        RulesError: a rules file, a rule, or reference data cannot be used.
        ConfigError: the ``[business]`` config is inconsistent.
    """
    from jsoncontract.business.context import check_now, merge
    from jsoncontract.errors import ConfigError, UsageError

    section = config.section("business") if config is not None else {}
    label = str(config.path) if config is not None and config.path is not None else "config"
    if rules is None:
        paths: list[Path | str] = list(config.paths(section.get("rules"))) if config else []
    else:
        paths = list(rules)
    base_context = section.get("context") or {}
    try:
        check_now(base_context, f"{label} [business.context]")
    except UsageError as exc:
        raise ConfigError(exc.message) from None
    ruleset = None
    data = section.get("data") or {}
    if paths or data:
        from jsoncontract.business.rules import load_rules

        ruleset = load_rules(
            paths,
            data=data,
            data_base=config.root if config is not None else None,
            data_label=f"{label} [business.data]",
            tools=tools,
            python_timeout=float(section.get("python_timeout", 1.0)),
            cost_budget=cost_budget(section, cost_budget_override),
        )
    idempotency = section.get("idempotency") or {}
    try:
        settings = IdempotencySettings.from_config(idempotency)
    except ConfigError as exc:
        where = str(config.path) if config is not None and config.path is not None else None
        raise ConfigError(exc.message, file=where) from None
    warnings = []
    if "key_fields" in idempotency:
        warnings.append(
            f"{label}: [business.idempotency] key_fields is the old name of key_names (as "
            "in [lint.idempotency]); it still works, but rename it"
        )
    return BusinessRules(
        ruleset,
        context=merge(base_context, context),
        idempotency=settings,
        show_values=show_values,
        warnings=warnings,
    )
