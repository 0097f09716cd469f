"""Errors that stop a job (exit code 2).

Problems *inside* a payload are never raised: they become :class:`~jsoncontract.model.Finding`
values. These exceptions are for inputs the library cannot work with at all: a tools file
that is not JSON, a schema that is not a schema, a config key that does not exist. Each
carries a message that says what to fix; the CLI prints it on one line and exits 2.
"""

from __future__ import annotations


class JsoncontractError(Exception):
    """Base class of every error the library raises on purpose.

    Arguments:
        message: one line saying what is wrong and, where possible, what to do.
        file: the file the problem is in, when there is one.
        line: 1-based line in ``file``.
        column: 1-based column in ``file``.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def __str__(self) -> str:
        if self.file is None:
            return self.message
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class UsageError(JsoncontractError):
    """The command line or API call asks for something impossible."""


class InputError(JsoncontractError):
    """An input file is missing, unreadable, too large, or not JSON."""


class NotThisKind(InputError):
    """A readable file that holds something else than what the command reads (a
    ``package.json`` among captures): skipped, not an error, when found in a directory."""


class ToolLoadError(JsoncontractError):
    """A tools file is in no known dialect, or a tool definition is broken."""


class NoToolDefinitions(ToolLoadError, NotThisKind):
    """A file that holds no tool definition in any known dialect."""


class SchemaLoadError(ToolLoadError):
    """A tool's schema is not a valid JSON Schema (or uses a remote or unknown reference)."""


class ConfigError(JsoncontractError):
    """The project configuration is invalid."""


class ServerError(JsoncontractError):
    """An MCP server could not be started, reached or spoken to (it never answered, exited
    during ``initialize``, refused the connection, or needs an SDK that is not installed)."""
