"""Lint settings: profiles, rule selection, severities, limits and suppressions.

:func:`build_settings` merges the ``[lint]`` config section with command-line values (the
command line wins) and resolves every rule selector, so a misspelt code fails before any
file is read, naming the closest code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract._spelling import did_you_mean
from jsoncontract.errors import ConfigError, UsageError
from jsoncontract.lint.context import (
    DEFAULT_KEY_NAMES,
    IdempotencySettings,
    LintSettings,
    Suppression,
)
from jsoncontract.lint.limits import Limits, parse_limit_option
from jsoncontract.lint.profiles import (
    DEFAULT_MCP_VERSION,
    ENGINE_PROFILES,
    GENERIC,
    MCP_VERSIONS,
    PROFILES,
    UMBRELLAS,
)
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.settings import Config, ReportSettings


def parse_profiles(values: Iterable[str], *, origin: str) -> tuple[str, ...]:
    """Profile names from ``--profile a,b`` or the config (``all`` means every provider
    profile; ``vllm`` and ``ollama`` the engine profiles of what they run).

    Raises:
        UsageError: an unknown profile (with the closest name).
    """
    out: list[str] = []
    for value in values:
        for name in (p.strip() for p in value.split(",")):
            if not name:
                continue
            if name == "all":
                out.extend(PROFILES)
                continue
            if name in UMBRELLAS:
                out.extend(UMBRELLAS[name])
                continue
            if name not in PROFILES and name not in ENGINE_PROFILES:
                names = (*PROFILES, *ENGINE_PROFILES, *UMBRELLAS)
                guess = did_you_mean(name, names)
                tip = f"; did you mean {guess!r}?" if guess else ""
                known = ", ".join(names)
                raise UsageError(
                    f"{origin}: unknown profile {name!r}{tip} (profiles: {known}, all)"
                )
            out.append(name)
    return tuple(dict.fromkeys(out)) or (GENERIC,)


def check_mcp_version(version: str) -> str:
    """``version`` when it is an MCP protocol version the rules know.

    Raises:
        UsageError: an unknown version (with the known ones).
    """
    if version not in MCP_VERSIONS:
        raise UsageError(f"unknown MCP version {version!r}; known: {', '.join(MCP_VERSIONS)}")
    return version


def build_settings(
    section: Mapping[str, Any] | None = None,
    *,
    config_file: str = "config",
    profiles: Sequence[str] | None = None,
    mcp_version: str | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    limits: Sequence[str] = (),
    tool_name: str | None = None,
    engine_check: bool = False,
    ruleset: Path | None = None,
    root: Path | None = None,
) -> LintSettings:
    """Settings from the ``[lint]`` config section overridden by command-line values.

    The project's own rules (``[[lint.rules]]``, and the Spectral ruleset of ``ruleset`` or
    ``[lint] ruleset``, relative to ``root``) load first, so that a broken one stops here,
    and selectors can name them.

    Raises:
        UsageError: a bad command-line value (unknown code, profile or limit).
        ConfigError: a bad config value (unknown code, suppression without a reason...), or
            a user rule that cannot run.
        InputError: the ruleset (or a file it extends) cannot be read.
    """
    from jsoncontract.lint.codes import resolve_selectors
    from jsoncontract.lint.user import load_user_rules

    section = section or {}
    warnings: list[str] = []
    origin = f"{config_file} [lint]"
    user_rules = load_user_rules(
        section, config_file=config_file, root=root or Path.cwd(), ruleset=ruleset
    )
    extra = {rule.code: rule for rule in user_rules}

    if profiles:
        chosen = parse_profiles(profiles, origin="--profile")
    else:
        raw = section.get("profile", GENERIC)
        chosen = parse_profiles([raw] if isinstance(raw, str) else raw, origin=origin)
    version = check_mcp_version(mcp_version or section.get("mcp_version") or DEFAULT_MCP_VERSION)

    def resolve(values: Iterable[str], where: str, *, cli: bool) -> frozenset[str]:
        try:
            codes, notes = resolve_selectors(values, extra)
        except LookupError as exc:
            error = UsageError if cli else ConfigError
            raise error(f"{where}: {exc.args[0]}") from None
        warnings.extend(f"{where}: {n}" for n in notes)
        return frozenset(codes)

    chosen_select: frozenset[str] | None = None
    if select:
        chosen_select = resolve(select, "--select", cli=True)
    elif section.get("select"):
        chosen_select = resolve(section["select"], f"{origin} select", cli=False)
    if ignore is not None:
        chosen_ignore = resolve(ignore, "--ignore", cli=True)
    else:
        chosen_ignore = resolve(section.get("ignore", ()), f"{origin} ignore", cli=False)

    severities: dict[str, Severity] = {}
    for selector, level in (section.get("severity") or {}).items():
        codes = resolve([selector], f"{origin} severity", cli=False)
        for code in codes:
            if level == "off":
                chosen_ignore |= {code}
            else:
                severities[code] = Severity(level)

    values: dict[str, dict[str, Any]] = {
        group: dict(table) for group, table in (section.get("limits") or {}).items()
    }
    result_limits = Limits().with_values(values, origin=f"{origin} limits")
    cli_values: dict[str, dict[str, Any]] = {}
    for text in limits:
        group, name, value = parse_limit_option(text)
        cli_values.setdefault(group, {})[name] = value
    try:
        result_limits = result_limits.with_values(cli_values, origin="--limit")
    except ConfigError as exc:
        raise UsageError(exc.message) from None

    suppressions: list[Suppression] = []
    for index, entry in enumerate(section.get("suppress") or ()):
        where = f"{origin} suppress[{index}]"
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise ConfigError(f'{where}: a suppression needs a reason (reason = "...")')
        rules = entry.get("rules")
        tools = entry.get("tools", entry.get("tool"))
        if isinstance(tools, str):
            tools = [tools]
        if not tools:
            raise ConfigError(f'{where}: name the tool(s) it applies to (tool = "name")')
        codes = resolve([rules] if isinstance(rules, str) else rules or (), where, cli=False)
        if not codes:
            raise ConfigError(f'{where}: name the rule(s) it silences (rules = ["JC020"])')
        path = entry.get("path")
        suppressions.append(
            Suppression(tuple(sorted(codes)), tuple(tools), reason, path if path else None)
        )

    idem = section.get("idempotency") or {}
    idempotency = IdempotencySettings(
        key_names=tuple(idem.get("key_names", DEFAULT_KEY_NAMES)),
        write_tools=tuple(idem.get("write_tools", ())),
        read_tools=tuple(idem.get("read_tools", ())),
    )
    if chosen_select is not None and len(chosen_select) <= 5:
        warnings.extend(_not_run(chosen_select, chosen, version))
    checked = _engine_check(chosen, warnings) if engine_check else frozenset()
    return LintSettings(
        profiles=chosen,
        mcp_version=version,
        select=chosen_select,
        ignore=chosen_ignore,
        severities=severities,
        limits=result_limits,
        suppressions=tuple(suppressions),
        idempotency=idempotency,
        tool_name=tool_name,
        warnings=tuple(warnings),
        engine_check=checked,
        user_rules=user_rules,
    )


def _engine_check(profiles: Sequence[str], warnings: list[str]) -> frozenset[str]:
    """The engine profiles ``--engine-check`` can compile with (their package imports).

    Raises:
        UsageError: no engine profile selected, or none of their engines is installed.
    """
    import importlib.util

    from jsoncontract.lint.engines import engine

    chosen = [p for p in profiles if p in ENGINE_PROFILES]
    if not chosen:
        raise UsageError(
            "--engine-check compiles with the engines of engine profiles; add one "
            f"(-p {', -p '.join(ENGINE_PROFILES)}, -p vllm or -p ollama)"
        )
    found: set[str] = set()
    for name in chosen:
        distribution = engine(name).distribution
        if distribution is None:
            warnings.append(
                f"--engine-check: {name} has no Python package to compile with; its profile "
                f"follows {engine(name).title}"
            )
        elif importlib.util.find_spec(distribution.replace("-", "_")) is None:
            warnings.append(
                f"--engine-check: {distribution} is not installed; {name} is not checked"
            )
        else:
            found.add(name)
    if not found:
        raise UsageError(
            "--engine-check: none of the engines of the selected profiles is installed; "
            "pip install 'jsoncontract[engines]' (llguidance, outlines-core)"
        )
    return frozenset(found)


def _not_run(select: Iterable[str], profiles: tuple[str, ...], version: str) -> Iterator[str]:
    """A note for each explicitly selected rule that runs in none of the profiles."""
    from jsoncontract.lint.codes import all_rules

    for code in sorted(select):
        rule = all_rules().get(code)
        if rule is None:  # a user rule: it runs in every profile
            continue
        severity, _ = rule.severity_for(profiles, version)
        if severity is None:
            yield (
                f"{code} ({rule.name}) does not run in the profiles {', '.join(profiles)}; "
                f"jsoncontract rules {code} says where it does"
            )


@dataclass(frozen=True, slots=True)
class LintCommandSettings:
    """Everything a ``lint`` run needs: the files, the linter's :class:`LintSettings`,
    whether to apply the fixes (``fix``) or show them as a diff (``diff``), and the report;
    ``exclude``: the globs of files left out when a directory is walked; ``changed``: the
    paths are the changed files a hook passes (those among the config's tools, which may be
    none; a file that holds no tool definition is skipped).
    """

    paths: tuple[str | Path, ...]
    lint: LintSettings
    report: ReportSettings
    fix: bool = False
    diff: bool = False
    exclude: tuple[str, ...] = ()
    changed: bool = False


def command_settings(
    cfg: Config,
    *,
    paths: Sequence[str | Path] | None = None,
    profiles: Sequence[str] | None = None,
    mcp_version: str | None = None,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    limits: Sequence[str] | None = None,
    tool: str | None = None,
    fix: bool = False,
    diff: bool = False,
    format: str | None = None,
    output: Path | None = None,
    fail_on: str | None = None,
    statistics: bool = False,
    quiet: bool = False,
    color: bool | None = None,
    exclude: Sequence[str] | None = None,
    changed: bool = False,
    baseline: Path | None = None,
    engine_check: bool = False,
    ruleset: Path | None = None,
) -> LintCommandSettings:
    """The settings of a ``lint`` run: the ``[lint]`` section and the command line.

    Values given as ``--select a,b --select c`` are split at the commas.

    Raises:
        UsageError: no files, ``--fix`` with ``--diff`` or with stdin, or a bad
            command-line value (unknown code, profile or limit).
        ConfigError: a bad config value.
    """
    from jsoncontract.settings import (
        among,
        exclude_patterns,
        report_settings,
        split_values,
        tool_paths,
    )

    section = cfg.section("lint")
    targets: Sequence[str | Path] = tool_paths(paths, cfg, how="name files or directories")
    if changed:
        targets = among(targets, cfg.paths(cfg.get("tools")))
    if fix and diff:
        raise UsageError("--fix writes the fixes and --diff only shows them; choose one")
    if fix and any(str(t) == "-" for t in targets):
        raise UsageError("--fix cannot write back to stdin; use --diff, or name the files")
    settings = build_settings(
        section,
        config_file=str(cfg.path) if cfg.path else "config",
        profiles=split_values(profiles),
        mcp_version=mcp_version,
        select=split_values(select),
        ignore=split_values(ignore),
        limits=limits or (),
        tool_name=tool,
        engine_check=engine_check,
        ruleset=ruleset,
        root=cfg.root,
    )
    report = report_settings(
        cfg, "lint", format=format, output=output, fail_on=fail_on, baseline=baseline,
    )  # fmt: skip
    options = replace(
        report.options, color=color, quiet=quiet, statistics=statistics, fail_on=report.fail_on
    )
    return LintCommandSettings(
        tuple(targets),
        settings,
        replace(report, options=options),
        fix,
        diff,
        exclude=exclude_patterns(exclude, cfg),
        changed=changed,
    )
