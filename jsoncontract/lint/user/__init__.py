"""House rules: lint rules a project writes itself, beside the built-in catalog.

Two forms, loaded and checked before anything is linted (a broken rule stops the run with
exit code 2 and one line naming it):

- ``[[lint.rules]]`` in the project config (:mod:`.cel`): a JSONPath ``given`` over each tool
  definition as written, and a CEL assertion ``expr`` over each match (``self``), typed and
  checked like a business rule;
- ``lint --ruleset FILE`` (or ``[lint] ruleset``), a Spectral ruleset in YAML or JSON
  (:mod:`.spectral`): its ``given``/``then`` rules over each tool file, with Spectral's core
  functions (:mod:`.functions`).

Their findings carry the rule's own code (a Spectral rule's name), and run in every
profile; ``--select``, ``--ignore``, ``[lint.severity]`` and suppressions name them by code,
and the family ``user`` names them all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from jsoncontract.lint.rule import ALL, Family, Rule, by_profile

if TYPE_CHECKING:
    from jsoncontract.codes import RuleMeta
    from jsoncontract.model import Severity

R = TypeVar("R", bound="UserRule")


class UserRule(Rule):
    """A rule written by the project: its code and severity are the user's, and it says
    where it was written (``origin``) and what it checks (``definition``, for SARIF's help)."""

    family = Family.USER
    origin: ClassVar[str] = ""
    definition: ClassVar[str] = ""

    def meta(self) -> RuleMeta:
        """The rule as reports describe it."""
        from jsoncontract.codes import RuleMeta

        return RuleMeta(
            code=self.code,
            name=self.name,
            summary=self.summary,
            severity=self.default_severity,
            help_markdown=f"{self.summary}.\n\nDefined in {self.origin}:\n\n{self.definition}",
            tags=(Family.USER.value,),
            description=f"{self.summary} (a rule of {self.origin}).",
        )


def make_rule(base: type[R], *, code: str, summary: str, severity: Severity, **attrs: Any) -> R:
    """An instance of a class made for one user rule (its code, name and severity are class
    attributes, as the catalog's are)."""
    members: dict[str, Any] = {
        "code": code,
        "name": code,
        "summary": summary,
        "profiles": by_profile({ALL: severity}),
        **attrs,
    }
    cls = type(f"{base.__name__}[{code}]", (base,), members)
    rule: R = cls()
    return rule


def load_user_rules(
    section: Mapping[str, Any],
    *,
    config_file: str,
    root: Path,
    ruleset: Path | None = None,
) -> tuple[UserRule, ...]:
    """The ``[[lint.rules]]`` of the ``[lint]`` section, then the rules of the Spectral
    ruleset (``ruleset``, else ``[lint] ruleset`` relative to the config).

    Raises:
        ConfigError: a rule that cannot run (bad JSONPath, CEL syntax or type error, unknown
            function, bad options), a code used twice or taken by a built-in rule.
        InputError: the ruleset (or a file it extends) cannot be read.
    """
    rules: list[UserRule] = []
    entries = section.get("rules") or ()
    if entries:
        from jsoncontract.lint.user.cel import cel_rules

        rules.extend(cel_rules(entries, f"{config_file} [[lint.rules]]"))
    path = ruleset
    if path is None and section.get("ruleset"):
        path = root / str(section["ruleset"])
    if path is not None:
        from jsoncontract.lint.user.spectral import spectral_rules

        rules.extend(spectral_rules(path))
    _check_codes(rules)
    return tuple(rules)


def _check_codes(rules: Sequence[UserRule]) -> None:
    from jsoncontract.errors import ConfigError
    from jsoncontract.lint.codes import REDIRECTS, all_rules, by_name

    taken = {*all_rules(), *REDIRECTS, *by_name(), *(f.value for f in Family), "ALL"}
    seen: dict[str, UserRule] = {}
    for rule in rules:
        if rule.code in taken or rule.code.upper() in taken:
            raise ConfigError(
                f"{rule.origin}: rule {rule.code!r}: the code is a built-in rule's, family's "
                "or selector's; choose another"
            )
        if rule.code in seen:
            raise ConfigError(
                f"{rule.origin}: rule {rule.code!r} is also defined in {seen[rule.code].origin}; "
                "codes must be unique"
            )
        seen[rule.code] = rule


__all__ = ["UserRule", "load_user_rules", "make_rule"]
