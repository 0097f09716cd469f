"""``jsoncontract mcp replay``: a recorded session served as a stdio MCP server."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from jsoncontract.cli.mcp.options import FaultOptions
from jsoncontract.cli.options import grouped, warn


# fmt: off
@grouped
def replay_cli(
    trace: Annotated[Path, typer.Argument(
        help="A trace of mcp record (or a log of JSON-RPC frames, one per line).",
        dir_okay=False, show_default=False)],
    *,
    faults: FaultOptions,
) -> int:
    # fmt: on
    """Serve a recorded session as a stdio MCP server: initialize, tools/list, and each
    recorded tools/call answer by tool and arguments; anything not recorded gets a JSON-RPC
    error saying so (code -32010, or -32601 for a method)."""
    from jsoncontract.live.replay import load_recording, serve_replay

    injector = faults.injector()
    recording = load_recording(trace)
    if not recording.pages and recording.initialize is None and recording.discover is None:
        warn([f"{trace}: no initialize and no tools/list answer were recorded"])
    return serve_replay(recording, injector)
