"""The command line: thin typer commands over the library.

``main`` is the console script. It answers ``--version`` before importing anything heavy,
runs the typer app, and is the one place where exceptions become exit codes:
0 clean, 1 findings at or above ``--fail-on``, 2 could not do the job. It is also where a
command's run pauses the cyclic garbage collector (:mod:`jsoncontract._gc` says why).
"""

from __future__ import annotations

import os
import sys
from typing import NoReturn

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
#: Ctrl-C (128 + SIGINT, as a shell reports it).
EXIT_INTERRUPTED = 130
#: Characters of an error line at most (it may quote input).
MAX_ERROR_LINE = 1000


def main(argv: list[str] | None = None) -> NoReturn:
    """Run the command line and exit with its code."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        from jsoncontract._version import __version__

        sys.stdout.write(f"jsoncontract {__version__}\n")
        sys.exit(EXIT_OK)
    sys.exit(run(args))


def run(args: list[str]) -> int:
    """Run the command line and return its exit code (never raises, never exits)."""
    from jsoncontract._gc import collector_paused
    from jsoncontract.cli.app import build
    from jsoncontract.errors import JsoncontractError

    spelling = sys.modules.get("jsoncontract._spelling")
    if spelling is not None:  # an earlier run in this process (tests, embedding)
        spelling.reset_budget()
    if sys.stderr is None:  # closed (2>&-): errors go nowhere, the exit code still tells
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115, PTH123 (for the life of the process)

    command = build(args)
    try:
        with collector_paused():
            code = command.main(args, prog_name="jsoncontract", standalone_mode=False)
    except JsoncontractError as exc:
        _error(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_OK
    except Exception as exc:  # the only catch-all: an internal error is still exit 2
        # click's exceptions (typer may carry its own copy of click): matched by shape
        kind = type(exc).__name__
        if kind == "ReaderGone":  # cli.options: stdout's reader went away
            _quiet_broken_pipe()
            return EXIT_OK
        if kind == "Exit" and hasattr(exc, "exit_code"):
            return int(exc.exit_code)
        if kind == "Abort":
            _error("aborted")
            return EXIT_ERROR
        if hasattr(exc, "show") and hasattr(exc, "exit_code"):
            exc.show()
            return EXIT_ERROR
        if os.environ.get("JSONCONTRACT_DEBUG"):
            raise
        _error(
            f"internal error: {type(exc).__name__}: {exc} "
            "(set JSONCONTRACT_DEBUG=1 for a traceback, and please report it)"
        )
        return EXIT_ERROR
    if code == EXIT_INTERRUPTED:  # typer's answer to Ctrl-C (no command returns it)
        _error("interrupted")
    return int(code or 0)


def _error(message: str) -> None:
    """One line on stderr, secrets masked (a message may quote input), cut to a length a
    terminal shows; nothing when stderr cannot be written."""
    from jsoncontract.masking import masked

    if len(message) > MAX_ERROR_LINE:
        message = message[: MAX_ERROR_LINE - 1] + "…"
    line = masked(" ".join(message.splitlines()))
    try:
        sys.stderr.write(f"jsoncontract: error: {line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _quiet_broken_pipe() -> None:
    """The reader of our output went away (``| head``): stop without a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
