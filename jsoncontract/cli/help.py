"""What ``--help`` says, the same way in every command: one name per kind of value, the
choices of an option spelt out, and one or two examples per command.

Applied to the built command line (:func:`polish`), so each command module only says what
its options do. The examples run on the bundled fixtures of a clone of the repository (a
test runs every one of them).
"""

from __future__ import annotations

from typing import Any, Final

#: The value an option takes, named the same wherever it appears (by its long name).
METAVARS: Final = {
    "--tools": "PATH",
    "--tool": "NAME",
    "--dialect": "DIALECT",
    "--rules": "FILE",
    "--context": "JSON|@FILE",
    "--format": "FORMAT",
    "--output": "FILE",
    "--fail-on": "LEVEL",
    "--max-shown": "N",
    "--exclude": "GLOB",
    "--config": "FILE",
    "--baseline": "FILE",
    "--trace": "FILE",
    "--call-id": "ID",
    "--mapping": "FILE",
    "--downstream-schema": "[TOOL=]FILE[#POINTER]",
    "--correlate": "MEMBER",
    "--tolerance": "NUMBER",
    "--set": "POINTER",
    "--multiset": "POINTER",
    "--key": "POINTER=FIELD",
    "--rows": "ROWS",
    "--width": "COLUMNS",
    "--profile": "PROFILE",
    "--mcp-version": "VERSION",
    "--select": "RULE",
    "--limit": "NAME=VALUE",
    "--lock": "FILE",
    "--seed": "N",
    "--kind": "KIND",
    "--capture": "FILE",
    "--max-depth": "N",
    "-k": "EXPR",
    "--cost-budget": "N",
    "--result-window": "N",
    "--jobs": "N",
    "--spark": "MASTER",
    # mcp
    "--allow": "TOOL",
    "--cases": "KINDS",
    "--concurrency": "N",
    "--connect-timeout": "SECONDS",
    "--inject": "FAULT",
    "--listen": "HOST:PORT",
    "--max-cases": "N",
    "--mcp-config": "FILE",
    "--name": "NAME",
    "--protocol": "VERSION",
    "--timeout": "SECONDS",
    "--upstream": "URL",
    "--header": "'NAME: VALUE'",
    "--env": "KEY=VALUE",
    "--max-retries": "N",
    "--restarts": "N",
    "--on-drift": "hide|flag|pass",
    "--on-bad-result": "error|mask|pass",
    "--missing-key": "refuse|allow",
}
#: Where one command's option takes another kind of value than the name says elsewhere.
COMMAND_METAVARS: Final = {
    ("lint", "--ignore"): "RULE",
    ("mcp", "--ignore"): "RULE",
    ("diff", "--ignore"): "POINTER",
}
#: The arguments, by command.
ARGUMENTS: Final = {
    ("mcp", "trace"): "TRACE",
    ("check", "captures"): "CAPTURE...",
    ("diff", "hop_files"): "HOP_FILE...",
    ("lint", "paths"): "TOOLS...",
    ("pin", "paths"): "TOOLS...",
    ("test", "suites"): "SUITE...",
    ("fixtures", "suite_dir_arg"): "SUITE_DIR",
}

#: One or two examples per command, on the fixtures a clone of the repository holds.
EXAMPLES: Final = {
    "check": [
        "jsoncontract check --tools fixtures/tools fixtures/captures",
        "jsoncontract check -t fixtures/tools fixtures/captures -f html -o report.html",
    ],
    "diff": [
        "jsoncontract diff fixtures/diff/coerced/*.json",
        "jsoncontract diff --trace fixtures/diff/trace.jsonl --call-id call_Q7mV",
    ],
    "lint": [
        "jsoncontract lint fixtures/tools",
        "jsoncontract lint fixtures/lint/weak-tools.json -p openai-strict --diff",
    ],
    "rules": [
        "jsoncontract rules JC020",
        "jsoncontract rules --check fixtures/rules/shipping.toml -t fixtures/tools",
    ],
    "fixtures": [
        "jsoncontract fixtures --tools fixtures/tools suites",
    ],
    "test": [
        "jsoncontract test --tools fixtures/tools fixtures/suites/example",
        "jsoncontract test -t fixtures/tools fixtures/suites/example -k wrong-enum",
    ],
    "pin": [
        "jsoncontract pin fixtures/tools --lock tools.lock",
        "jsoncontract pin fixtures/tools --lock tools.lock --check",
    ],
}


def epilog(lines: list[str]) -> str:
    """An ``Examples:`` section, kept as written (click rewraps text unless told)."""
    return "Examples:\n\n\b\n" + "\n".join(lines)


def polish(command: Any, path: str = "") -> Any:
    """Apply the tables to the built command line, and return it."""
    for name, sub in getattr(command, "commands", {}).items():
        polish(sub, f"{path} {name}".strip())
    command_name = path.split(" ")[0] if path else ""
    for param in getattr(command, "params", ()):
        name = param.name or ""
        if param.param_type_name == "argument":
            metavar = ARGUMENTS.get((command_name, name))
            if metavar is not None:
                param.metavar = metavar
            continue
        flag = max(param.opts, key=len, default=name)  # the long name, when it has one
        metavar = COMMAND_METAVARS.get((command_name, flag)) or METAVARS.get(flag)
        if metavar is None or param.is_flag or getattr(param, "metavar", None) is not None:
            continue
        param.metavar = metavar
        choices = getattr(param.type, "choices", None)
        if choices:
            words = [str(getattr(c, "value", c)) for c in choices]
            text = param.help or ""
            if not all(word in text for word in words):
                param.help = f"{text.rstrip()} One of: {', '.join(words)}.".strip()
    if path in EXAMPLES and not getattr(command, "epilog", None):
        command.epilog = epilog(EXAMPLES[path])
    return command


__all__ = ["ARGUMENTS", "EXAMPLES", "METAVARS", "epilog", "polish"]
