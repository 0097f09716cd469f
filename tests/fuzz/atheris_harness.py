"""Coverage-guided fuzzing (Atheris, libFuzzer) of the JSON parse path and the capture reader.

    python tests/fuzz/atheris_harness.py json    [LIBFUZZER OPTIONS] [CORPUS_DIR ...]
    python tests/fuzz/atheris_harness.py capture [LIBFUZZER OPTIONS] [CORPUS_DIR ...]

``json`` feeds bytes to the exact loader (``_json.load``: orjson, then the standard
library's hooks for duplicate keys, big integers, lone surrogates...) and, on a failure, to
the diagnosis that explains it; ``capture`` feeds them to the capture reader as a whole
document, a JSON Lines trace and an SSE stream. Any exception but jsoncontract's own errors
is a crash: libFuzzer stops, prints it and writes the input (``crash-*``) to reproduce it.

CI runs each target for a fixed time (``tests/fuzz/test_atheris.py``, seeded with the
bundled captures); run longer by hand, for example for an hour with a corpus kept between
runs::

    mkdir -p .fuzz/json && python tests/fuzz/atheris_harness.py json -max_total_time=3600 \\
        .fuzz/json fixtures/captures
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports(include=["jsoncontract"]):
    from jsoncontract._json import NotJSON, diagnose, load
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.errors import JsoncontractError

#: Bytes of one input at most (longer inputs explore nothing a shorter one does not).
MAX_LEN = 64 * 1024


def fuzz_json(data: bytes) -> None:
    """The exact loader and, when the input is not JSON, the diagnosis."""
    try:
        load(data)
    except NotJSON as exc:
        assert exc.diagnosis.message
        diagnose(data)


_READER = CaptureReader()


def fuzz_capture(data: bytes) -> None:
    """The capture reader, as a whole document, a JSON Lines trace and an SSE stream."""
    for name in ("capture.json", "trace.jsonl", "stream.sse"):
        try:
            for call in _READER.read_document(data, name=name):
                assert call.source is None or call.source.file == name
        except JsoncontractError:
            pass


TARGETS = {"json": fuzz_json, "capture": fuzz_capture}


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in TARGETS:
        sys.stderr.write(f"usage: {argv[0]} {{{'|'.join(TARGETS)}}} [libFuzzer options]\n")
        raise SystemExit(2)
    target = TARGETS[argv[1]]
    args = [argv[0], f"-max_len={MAX_LEN}", *argv[2:]]
    atheris.Setup(args, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
