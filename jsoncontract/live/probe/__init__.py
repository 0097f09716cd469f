"""``mcp probe``: does a live server keep the contract it advertises?

For every tool it may call, the probe sends the cases ``jsoncontract fixtures`` derives from
the tool's own input schema (a valid call, then one broken in one place: a required member
missing, a wrong type, a value outside the enum, an undeclared member, a string where a
number belongs) and compares what the server did with what its schema says:

- a call the schema rejects but the server **accepts** is the finding that matters
  (``probe.accepted_invalid``; ``probe.coerced`` when it took ``"20"`` for a number);
- a rejection is checked for the kind the negotiated version asks for, results for
  ``structuredContent`` against ``outputSchema`` (see :mod:`jsoncontract.pipeline.answers`);
- a call that times out, crashes the server, or gets an unreadable answer is a finding;
  a crash restarts the server and the run goes on.

Beyond the tools, the protocol: ``initialize`` and ``tools/list`` in time, an unknown
method answered -32601, a malformed request -32600, an unknown tool as the version says,
well-formed error objects, nothing but JSON-RPC on stdout, and, for an HTTP server said to
require credentials, a request without them refused with 401.

**Safety.** Only tools annotated ``readOnlyHint: true`` are called, unless named with
``allow`` (or ``allow_writes``); ``dry_run`` plans every request and sends none of the calls.
Nothing is sent anywhere but the named server, and every request has a timeout.

The probe is one module per stage, in the order a run goes through them:

- :mod:`~jsoncontract.live.probe.model`: the case kinds, the settings and the scorecards;
- :mod:`~jsoncontract.live.probe.planning`: which tools are called, and their cases;
- :mod:`~jsoncontract.live.probe.judging`: an answer held against the schema;
- :mod:`~jsoncontract.live.probe.protocol`: the checks beyond the tools;
- :mod:`~jsoncontract.live.probe.running`: the run, each stage in its place.

A new stage is a module beside these that takes the connection and gives
:class:`~jsoncontract.live.probe.model.ProtocolCheck` rows or findings, called from
:func:`~jsoncontract.live.probe.running.probe_server`.
"""

from jsoncontract.live.probe.model import (
    DEFAULT_KINDS,
    CaseKind,
    CaseResult,
    ProbeCase,
    ProbeReport,
    ProbeSettings,
    ProtocolCheck,
    ServerProbe,
    ToolProbe,
    parse_kinds,
)
from jsoncontract.live.probe.running import probe, probe_server, probe_servers

__all__ = [
    "DEFAULT_KINDS",
    "CaseKind",
    "CaseResult",
    "ProbeCase",
    "ProbeReport",
    "ProbeSettings",
    "ProtocolCheck",
    "ServerProbe",
    "ToolProbe",
    "parse_kinds",
    "probe",
    "probe_server",
    "probe_servers",
]
