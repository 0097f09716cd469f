"""``mcp guard -- COMMAND ARGS...``: the guard as a stdio proxy, where ``mcp record`` sits.

The host starts ``jsoncontract mcp guard [OPTIONS] -- COMMAND ARGS...`` where its config
named ``COMMAND ARGS...``. The proxy shares the recorder's framing and process handling
(:mod:`jsoncontract.live.record`: lines found in one linear pass, at most ``max_frame``
bytes of one held, a writer of whole frames, the server in a process group of its own,
ended with its helpers) and puts a
:class:`~jsoncontract.live.guard.session.GuardSession` between the two directions: each
frame of the host goes through :meth:`~GuardSession.client`, each frame of the server
through :meth:`~GuardSession.server`, and what they return is written where it goes. A
frame longer than ``max_frame`` cannot be judged: it is kept away (under ``observe``,
passed on as it comes) and told to :meth:`~GuardSession.too_large`.

It writes nothing to stdout but frames, and its own messages to stderr. When the host hangs
up, the server reads the end of its input and its answers are still judged and delivered;
a server silent for two seconds is ended with its process group, and the proxy exits with
the server's code (``128 + N`` for a signal N).
When the server exits while the host is still connected (a crash in the middle of a call),
the requests in flight are answered (``guard.server_exited``), and the server is started
again with the session's handshake replayed, up to ``restarts`` times; past that, the proxy
exits with the server's code.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Final

from jsoncontract.live.record import (
    MAX_FRAME,
    FramePart,
    FrameWriter,
    Source,
    end_after_exit,
    exit_on_signal,
    fd_lines,
    spawn,
    stop_server,
    wind_down,
)
from jsoncontract.live.trace import CLIENT, SERVER

if TYPE_CHECKING:
    from jsoncontract.live.guard.session import GuardSession, Out
    from jsoncontract.live.server import ServerSpec

#: How often calls waiting for the tool list are looked at (seconds).
_TICK: Final = 0.2
#: How much of a frame past the limit is kept to find its id.
_HEAD: Final = 512


class GuardProxy:
    """The stdio guard; :meth:`run` returns the server's exit code.

    Arguments:
        spec: the server (its command, environment and working directory).
        session: the session that judges the frames.
        client_in, client_out: the host's side (default: this process's stdin and stdout).
        on_message: told of what the user should know (one line each).
        max_frame: the longest frame held whole to be judged (bytes).
    """

    def __init__(
        self,
        spec: ServerSpec,
        session: GuardSession,
        *,
        client_in: IO[bytes] | None = None,
        client_out: IO[bytes] | None = None,
        on_message: Callable[[str], None] | None = None,
        max_frame: int = MAX_FRAME,
    ) -> None:
        self.spec = spec
        self.session = session
        self.max_frame = max_frame
        self._streams = (client_in, client_out)
        self._in = -1
        self._client = FrameWriter(-1)
        self._say = on_message or (lambda _: None)
        # held while a frame of the host is judged and written, and while the server is
        # started again: a request is never answered twice, or lost between two servers
        self._turn = threading.Lock()
        # held while a frame of the server is judged and written: the host's hang-up closes
        # the server's stdin between two of them, once the guard has nothing more to send
        self._upstream = threading.Lock()
        self._server: FrameWriter | None = None
        self._child: subprocess.Popen[bytes] | None = None
        self._source: Source | None = None  # the reader of the server's stdout
        self._heads: dict[str, bytes] = {}  # the first bytes of a frame past the limit
        self._hung_up = threading.Event()
        self._done = threading.Event()

    def run(self) -> int:
        """Start the server, guard the traffic until the host hangs up (or the server
        cannot be kept running), and return the server's exit code.

        Raises:
            ServerError: the server cannot be started.
        """
        child = self._start()
        given_in, given_out = self._streams
        try:
            self._in = (given_in or sys.stdin.buffer).fileno()
            self._client = FrameWriter((given_out or sys.stdout.buffer).fileno())
        except BaseException:  # no host to serve: the server goes too
            stop_server(child)
            raise
        threading.Thread(target=self._from_client, daemon=True).start()
        threading.Thread(target=self._tick, daemon=True).start()
        previous = signal.getsignal(signal.SIGTERM)
        main = threading.current_thread() is threading.main_thread()
        if main:
            signal.signal(signal.SIGTERM, exit_on_signal)
        code: int | None = None
        restarts = self.session.guard.settings.restarts
        try:
            while True:
                source = self._source
                assert source is not None
                for line in fd_lines(source, self.max_frame):
                    if isinstance(line, FramePart):
                        self._too_large(SERVER, line)
                    else:
                        with self._upstream:
                            self._write(self.session.server(line.rstrip(b"\r\n")))
                code = stop_server(child)
                hung_up = self._hung_up.is_set()
                if hung_up or restarts <= 0:
                    # requests it never answered are answered (after a hang-up, the host
                    # may still read)
                    if not hung_up or self.session.in_flight:
                        with self._turn:
                            self._write(self.session.server_exited(code))
                    if not hung_up:
                        self._say(
                            f"the server exited with code {code} and was restarted too often; "
                            "the guard stops"
                        )
                    break
                restarts -= 1
                with self._turn:
                    self._write(self.session.server_exited(code))
                    self._say(f"the server exited with code {code}; starting it again")
                    child = self._start()
                    self._write(self.session.restarted())
        finally:
            self._done.set()
            if self._child is not None and code is None:
                code = stop_server(self._child)
            if main:
                signal.signal(signal.SIGTERM, previous)
        return code if code is not None else 0

    def _start(self) -> subprocess.Popen[bytes]:
        child = spawn(self.spec)
        assert child.stdin is not None and child.stdout is not None
        gone = threading.Event()
        self._child = child
        self._server = FrameWriter(child.stdin.fileno())
        self._source = Source(child.stdout.fileno(), gone)
        # a server that exits on its own takes its helpers with it; a helper holding its
        # stdout is not waited for
        threading.Thread(target=end_after_exit, args=(child, gone), daemon=True).start()
        return child

    def _too_large(self, direction: str, part: FramePart) -> None:
        """A piece of a frame past the limit: passed on only under ``observe``; its end
        is told to the session, with the frame's first bytes (which may name its id)."""
        head = self._heads.setdefault(direction, part.data[:_HEAD])
        if self.session.observe:
            target = self._client if direction == SERVER else self._server
            if target is not None:
                target.write(part.data)
        if part.end:
            del self._heads[direction]
            self._write(self.session.too_large(direction, part.size, self.max_frame, head))

    def _write(self, outs: Iterable[Out]) -> None:
        for out in outs:
            if out.to == CLIENT:
                self._client.write(out.data + b"\n")
            elif self._server is not None:
                self._server.write(out.data + b"\n")

    def _from_client(self) -> None:
        for line in fd_lines(self._in, self.max_frame):
            with self._turn:
                if isinstance(line, FramePart):
                    self._too_large(CLIENT, line)
                else:
                    self._write(self.session.client(line.rstrip(b"\r\n")))
            if self._client.broken:
                break
        # the host hung up: the server answers what it was asked (the calls that waited
        # for the tool list included), then goes with its group
        deadline = time.monotonic() + self.session.guard.settings.list_timeout + 1
        while not self._done.is_set():
            with self._upstream:  # no answer of the server is being judged meanwhile
                if self.session.settled or time.monotonic() > deadline:
                    self._server = None  # nothing more goes to its stdin, closed below
                    break
            time.sleep(0.02)
        self._hung_up.set()
        with self._turn:
            self._server = None
        child = self._child
        if child is not None:
            if self._client.broken:
                stop_server(child)
            else:
                wind_down(child, lambda: self._source)

    def _tick(self) -> None:
        while not self._done.wait(_TICK):
            with self._turn:
                self._write(self.session.expire())


def guard_stdio(
    spec: ServerSpec,
    session: GuardSession,
    *,
    on_message: Callable[[str], None] | None = None,
    max_frame: int = MAX_FRAME,
) -> int:
    """Run the stdio guard on this process's stdin and stdout (see :class:`GuardProxy`)."""
    return GuardProxy(spec, session, on_message=on_message, max_frame=max_frame).run()


__all__ = ["GuardProxy", "guard_stdio"]
