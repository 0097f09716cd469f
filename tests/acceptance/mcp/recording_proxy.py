"""A stdio man-in-the-middle that records every JSON-RPC frame, the way a logging proxy does.

    python recording_proxy.py CAPTURE.jsonl COMMAND [ARGS...]

Frames from the client and from the server are appended to CAPTURE.jsonl, one per line,
unchanged, and passed on.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from typing import IO

capture_path, *command = sys.argv[1:]
lock = threading.Lock()
capture = open(capture_path, "ab")  # noqa: SIM115 - open for the proxy's whole life
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def pump(source: IO[bytes], sink: IO[bytes]) -> None:
    for line in iter(source.readline, b""):
        with lock:
            capture.write(line if line.endswith(b"\n") else line + b"\n")
            capture.flush()
        sink.write(line)
        sink.flush()
    sink.close()


assert child.stdin is not None and child.stdout is not None
upstream = threading.Thread(target=pump, args=(sys.stdin.buffer, child.stdin), daemon=True)
upstream.start()
pump(child.stdout, sys.stdout.buffer)
child.wait()
