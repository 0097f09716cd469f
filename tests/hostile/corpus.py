"""The hostile corpus: inputs made to break a contract checker, and what must happen to each.

Every case writes its inputs into an empty directory and names one command; the test suite
(``tests/hostile/test_corpus.py``) runs it there in a child process under resource limits
and holds it to the invariants: the exit code, at most one line on stderr and no "internal
error", peak memory and time under the case's bounds, no file left but the inputs and the
named output, and no secret in any output. Write the corpus out to look at it by hand:

    python tests/hostile/corpus.py OUT_DIR        # one directory per case, and cases.json
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Fake credentials, assembled from parts (made up; AWS documents its example key id).
OPENAI_KEY = "sk-" + "proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"
JWT = "eyJ" + "hbGciOiJIUzI1NiJ9.eyJ" + "zdWIiOiJhZG1pbi0xMjM0NSJ9.c2lnbmF0dXJlLXRoYXQtbGVha3M"
PASSWORD = "correct-horse-" + "battery-staple"
PEM = (
    "-----BEGIN "
    + "PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END "
    + "PRIVATE KEY-----"
)
SECRETS = (OPENAI_KEY, AWS_KEY, JWT, PASSWORD, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")

MB = 1024 * 1024


@dataclass(frozen=True)
class Case:
    """One hostile input and what must happen to it.

    ``args`` follow ``jsoncontract``; ``shell`` wraps the command for what only a shell can
    do (close a stream: ``{cmd} <&-``). ``codes``: the exit codes allowed. ``error``: text
    the one-line error must hold (exit 2). ``output``: the one file the command may write.
    """

    name: str
    args: tuple[str, ...]
    make: Callable[[Path], None]
    codes: tuple[int, ...]
    error: str | None = None
    output: str | None = None
    max_mb: int = 250
    max_seconds: float = 30.0
    shell: str | None = None
    secrets: tuple[str, ...] = ()
    stdin: bytes | None = None
    signal_after: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# -- inputs -------------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "maxLength": 40},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "note": {"type": "string"},
        "token": {"type": "string"},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def tools(schema: dict[str, Any] | None = None, name: str = "get_weather") -> str:
    return json.dumps(
        [{"type": "function", "function": {"name": name, "parameters": schema or SCHEMA}}]
    )


def chat(arguments: str, name: str = "get_weather", call_id: str = "c1") -> str:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return json.dumps({"role": "assistant", "tool_calls": [call]})


def files(**content: str | bytes) -> Callable[[Path], None]:
    """A maker writing the named files (``__`` in a name is a ``/``)."""

    def make(root: Path) -> None:
        for name, data in content.items():
            path = root / name.replace("__", "/").replace("_DOT_", ".")
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data, encoding="utf-8")

    return make


def both(*makers: Callable[[Path], None]) -> Callable[[Path], None]:
    def make(root: Path) -> None:
        for maker in makers:
            maker(root)

    return make


def _big_line(root: Path) -> None:
    """A JSONL trace whose second line is 200 MB, between two good calls."""
    with (root / "trace.jsonl").open("wb") as out:
        out.write(chat('{"city": "Oslo"}').encode() + b"\n")
        out.write(b'{"role": "assistant", "content": "')
        chunk = b"x" * MB
        for _ in range(200):
            out.write(chunk)
        out.write(b'"}\n')
        out.write(chat('{"city": "Bergen"}', call_id="c2").encode() + b"\n")
    (root / "tools.json").write_text(tools())


def _huge_enum(root: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"code": {"type": "string", "enum": [f"v{i}" for i in range(1_000_000)]}},
    }
    (root / "tools.json").write_text(tools(schema))
    (root / "call.jsonl").write_text(
        "\n".join(
            chat(json.dumps({"code": c}), call_id=f"c{i}")
            for i, c in enumerate(["v999999", "nope", "v12"])
        )
        + "\n"
    )


def _undeclared(root: Path) -> None:
    allowed = {f"field_{i:04d}": {"type": "string"} for i in range(1000)}
    schema = {"type": "object", "properties": allowed, "additionalProperties": False}
    (root / "tools.json").write_text(tools(schema))
    (root / "call.json").write_text(chat(json.dumps({f"extra_{i:05d}": 1 for i in range(5000)})))


def _random_bytes(root: Path) -> None:
    rng = random.Random(7)
    data = bytes(rng.randrange(256) for _ in range(4096)).replace(b"data:", b"")
    (root / "stream.sse").write_bytes(data)
    (root / "tools.json").write_text(tools())


def _symlink_loop(root: Path) -> None:
    (root / "tools.json").write_text(tools())
    (root / "loop.json").symlink_to(root / "loop.json")


def _fifo_trace(root: Path) -> None:
    (root / "tools.json").write_text(tools())
    os.mkfifo(root / "trace.jsonl")


def _secrets(root: Path) -> None:
    arguments = json.dumps(
        {"city": "Oslo", "note": f"use {AWS_KEY} and {JWT}", "token": PASSWORD, "days": 99}
    )
    lines = [
        chat(arguments),
        f"OPENAI_API_KEY={OPENAI_KEY}",
        f"password={PASSWORD}",
        json.dumps(
            {
                "role": "assistant",
                "content": PEM,
                "tool_calls": [
                    json.loads(chat(json.dumps({"city": PEM}), call_id="c3"))["tool_calls"][0]
                ],
            }
        ),
        json.dumps(
            {
                "headers": [{"name": "Authorization", "value": f"Bearer {OPENAI_KEY}"}],
                "role": "assistant",
                "tool_calls": [
                    json.loads(chat(json.dumps({"city": "x", "days": 0}), call_id="c4"))[
                        "tool_calls"
                    ][0]
                ],
            }
        ),
    ]
    (root / "trace.jsonl").write_text("\n".join(lines) + "\n")
    (root / "tools.json").write_text(tools())


def _draft3(ref: str) -> Callable[[Path], None]:
    schema = {
        "$schema": "http://json-schema.org/draft-03/schema#",
        "type": "object",
        "properties": {"city": {"$ref": ref}},
    }
    return files(tools_DOT_json=tools(schema), call_DOT_json=chat('{"city": "Oslo"}'))


def _catastrophic(root: Path) -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-03/schema#",
        "type": "object",
        "properties": {"city": {"type": "string", "pattern": "^(a+)+$"}},
        "patternProperties": {"^(b+)+$": {"type": "integer"}},
    }
    hostile = "a" * 40 + "!"
    arguments = json.dumps({"city": hostile, "b" * 40 + "!": 1})
    (root / "tools.json").write_text(tools(schema))
    (root / "call.json").write_text(chat(arguments))


def _deep_nesting(root: Path) -> None:
    (root / "tools.json").write_text(tools())
    (root / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (root / "deep.jsonl").write_text(chat("[" * 5000 + "]" * 5000) + "\n")


def _quadratic_parse(root: Path) -> None:
    key = "k" * 2000
    level = '{"a": 1, "a": 2, "' + key + '": '
    arguments = level * 900 + "1" + "}" * 900
    (root / "tools.json").write_text(tools())
    (root / "trace.jsonl").write_text(chat(arguments) + "\n" + chat('{"city": "Oslo"}') + "\n")


CASES: list[Case] = [
    Case(
        "deep-nesting-document",
        ("check", "--no-config", "--tools", "tools.json", "deep.json"),
        _deep_nesting,
        (2,),
        error="nested more than 1024 levels",
    ),
    Case(
        "deep-nesting-arguments",
        ("check", "--no-config", "--tools", "tools.json", "deep.jsonl"),
        _deep_nesting,
        (1,),
    ),
    Case(
        "line-of-200-mb",
        ("check", "--no-config", "--tools", "tools.json", "trace.jsonl"),
        _big_line,
        (1,),
        max_mb=200,
        max_seconds=60,
    ),
    Case(
        "enum-of-a-million",
        ("check", "--no-config", "--tools", "tools.json", "call.jsonl"),
        _huge_enum,
        (1,),
        max_mb=600,
        max_seconds=60,
    ),
    Case(
        "utf-16",
        ("check", "--no-config", "--tools", "tools.json", "call.json"),
        both(
            files(tools_DOT_json=tools()),
            files(call_DOT_json=chat('{"city": "Oslo"}').encode("utf-16")),
        ),
        (2,),
        error="not JSON",
    ),
    Case(
        "utf-32-lines",
        ("check", "--no-config", "--tools", "tools.json", "t.jsonl"),
        both(
            files(tools_DOT_json=tools()),
            files(t_DOT_jsonl=(chat('{"city": "Oslo"}') + "\n").encode("utf-32")),
        ),
        (1,),
    ),
    Case(
        "nul-bytes",
        ("check", "--no-config", "--tools", "tools.json", "t.jsonl"),
        files(tools_DOT_json=tools(), t_DOT_jsonl=b'{"role":"assistant"\x00}\n\x00\x00\n'),
        (1,),
    ),
    Case(
        "dev-zero-capture",
        ("check", "--no-config", "--tools", "tools.json", "/dev/zero"),
        files(tools_DOT_json=tools()),
        (2,),
        error="limit",
        max_mb=600,
        max_seconds=60,
    ),
    Case(
        "fifo-trace",
        ("check", "--no-config", "--tools", "tools.json", "trace.jsonl"),
        _fifo_trace,
        (0,),
        extra={"fifo": chat('{"city": "Oslo"}') + "\n"},
    ),
    Case(
        "symlink-loop",
        ("check", "--no-config", "--tools", "tools.json", "loop.json"),
        _symlink_loop,
        (2,),
    ),
    Case(
        "stdin-closed",
        ("check", "--no-config", "--tools", "tools.json", "-"),
        files(tools_DOT_json=tools()),
        (2,),
        error="standard input is closed",
        shell="{cmd} <&-",
    ),
    Case(
        "stdout-closed",
        ("check", "--no-config", "--tools", "tools.json", "c.json"),
        files(tools_DOT_json=tools(), c_DOT_json=chat('{"city": "Oslo"}')),
        (2,),
        error="standard output is closed",
        shell="{cmd} >&-",
    ),
    Case(
        "stderr-closed",
        ("check", "--no-config", "--tools", "tools.json", "missing.json"),
        files(tools_DOT_json=tools()),
        (2,),
        shell="{cmd} 2>&-",
    ),
    Case(
        "sigterm-while-writing",
        ("check", "--no-config", "--tools", "tools.json", "-f", "json", "-o", "out.json", "-"),
        files(tools_DOT_json=tools()),
        (143,),
        signal_after=1.5,
        extra={"stdin_pipe": chat('{"city": "Oslo"}') + "\n"},
    ),
    Case(
        "empty-output-name",
        ("check", "--no-config", "--tools", "tools.json", "-o", "", "c.json"),
        files(tools_DOT_json=tools(), c_DOT_json=chat('{"city": "Oslo"}')),
        (2,),
        error="cannot write",
    ),
    Case(
        "draft3-remote-ref",
        ("check", "--no-config", "--tools", "tools.json", "call.json"),
        _draft3("http://127.0.0.1:9/schema.json"),
        (2,),
        error="never fetches",
    ),
    Case(
        "draft3-file-ref",
        ("check", "--no-config", "--tools", "tools.json", "call.json"),
        _draft3("file:///etc/passwd"),
        (2,),
        error="never fetches",
        secrets=("root:",),
    ),
    Case(
        "draft3-catastrophic-regex",
        ("check", "--no-config", "--tools", "tools.json", "call.json"),
        _catastrophic,
        (1,),
        max_seconds=10,
    ),
    Case(
        "quadratic-parse",
        ("check", "--no-config", "--tools", "tools.json", "trace.jsonl"),
        _quadratic_parse,
        (1,),
        max_mb=200,
    ),
    Case(
        "undeclared-members",
        ("check", "--no-config", "--tools", "tools.json", "call.json"),
        _undeclared,
        (1,),
        max_seconds=20,
        extra={"max_output": 500_000},
    ),
    Case(
        "integer-of-5000-digits",
        ("check", "--no-config", "--tools", "tools.json", "t.jsonl"),
        files(
            tools_DOT_json=tools(),
            t_DOT_jsonl=chat('{"city": "x", "days": ' + "9" * 5000 + "}")
            + "\n"
            + chat('{"city": "Oslo"}', call_id="c2")
            + "\n",
        ),
        (1,),
    ),
    Case(
        "duplicate-additional-properties",
        ("check", "--no-config", "--tools", "tools.json", "c.json"),
        files(
            tools_DOT_json=tools().replace(
                '"additionalProperties": false',
                '"additionalProperties": false, "additionalProperties": true',
            ),
            c_DOT_json=chat('{"city": "Oslo", "extra": 1}'),
        ),
        (2,),
        error="more than once",
    ),
    Case(
        "empty-jsonl",
        ("check", "--no-config", "--tools", "tools.json", "t.jsonl"),
        files(tools_DOT_json=tools(), t_DOT_jsonl=" \n\n"),
        (2,),
        error="file is empty",
    ),
    Case(
        "random-bytes-sse",
        ("check", "--no-config", "--tools", "tools.json", "stream.sse"),
        _random_bytes,
        (2,),
        error="not a Server-Sent Events stream",
    ),
    Case(
        "done-only-sse",
        ("check", "--no-config", "--tools", "tools.json", "--fail-on", "warning", "s.sse"),
        files(tools_DOT_json=tools(), s_DOT_sse="data: [DONE]\n\n"),
        (1,),
    ),
    Case(
        "context-from-dev-zero",
        (
            "check",
            "--no-config",
            "--tools",
            "tools.json",
            "--rules",
            "rules.toml",
            "--context",
            "@/dev/zero",
            "c.json",
        ),
        files(
            tools_DOT_json=tools(),
            c_DOT_json=chat('{"city": "Oslo"}'),
            rules_DOT_toml='version = 1\n[[tools.get_weather]]\nid = "r"\nrule = "true"\n',
        ),
        (2,),
        error="limit",
        max_seconds=20,
    ),
    Case(
        "rules-from-dev-zero",
        ("check", "--no-config", "--tools", "tools.json", "--rules", "/dev/zero", "c.json"),
        files(tools_DOT_json=tools(), c_DOT_json=chat('{"city": "Oslo"}')),
        (2,),
        error="limit",
    ),
    Case(
        "rules-nested-100k",
        ("check", "--no-config", "--tools", "tools.json", "--rules", "r.toml", "c.json"),
        files(
            tools_DOT_json=tools(),
            c_DOT_json=chat('{"city": "Oslo"}'),
            r_DOT_toml="version = 1\nx = " + "[" * 100_000 + "]" * 100_000 + "\n",
        ),
        (2,),
        error="nested too deeply",
    ),
    Case(
        "config-nested-100k",
        ("check", "--config", "j.toml", "--tools", "tools.json", "c.json"),
        files(
            tools_DOT_json=tools(),
            c_DOT_json=chat('{"city": "Oslo"}'),
            j_DOT_toml="x = " + "{a=" * 100_000 + "1" + "}" * 100_000 + "\n",
        ),
        (2,),
        error="nested too deeply",
    ),
    Case(
        "cel-over-its-budget",
        ("check", "--no-config", "--tools", "tools.json", "--rules", "r.toml", "c.json"),
        files(
            tools_DOT_json=tools(),
            c_DOT_json=chat('{"city": "Oslo"}'),
            r_DOT_toml='version = 1\n[[tools.get_weather]]\nid = "spin"\n'
            'rule = "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, '
            "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
            "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "
            'a + b + c + d + e + f > 0))))))"\n',
        ),
        (1, 2),
    ),
    Case(
        "suite-capture-file-escape",
        ("test", "--no-config", "--tools", "tools.json", "p/suites"),
        both(
            files(tools_DOT_json=tools(), p__pyproject_DOT_toml=""),
            files(
                p__suites__t_DOT_suite_DOT_json=json.dumps(
                    {
                        "version": 1,
                        "tool": "get_weather",
                        "cases": [
                            {
                                "name": "x",
                                "expect": "ok",
                                "capture_file": "../../../../../../../../etc/passwd",
                            }
                        ],
                    }
                )
            ),
        ),
        (2,),
        error="outside the suite's project",
        secrets=("root:",),
    ),
    Case(
        "output-through-a-fifo",
        ("check", "--no-config", "--tools", "tools.json", "-f", "json", "-o", "report", "c.json"),
        both(
            files(tools_DOT_json=tools(), c_DOT_json=chat('{"city": "Oslo"}')),
            lambda root: os.mkfifo(root / "report"),
        ),
        (0,),
        extra={"read_fifo": "report"},
    ),
]


def _formats(command: str) -> list[str]:
    """Every report format of ``command``, from the reporter table (a new format is in the
    corpus the day it is added)."""
    from jsoncontract.reporters import formats

    return formats(command)


CASES += [
    Case(
        f"secrets-in-{fmt}",
        ("check", "--no-config", "--tools", "tools.json", "-f", fmt, "trace.jsonl"),
        _secrets,
        (1,),
        secrets=SECRETS,
    )
    for fmt in _formats("check")
]
CASES += [
    Case(
        f"secrets-in-diff-{fmt}",
        ("diff", "--no-config", "--tools", "tools.json", "-f", fmt, "--trace", "trace.jsonl"),
        _secrets,
        (0, 1),
        secrets=SECRETS,
    )
    for fmt in _formats("diff")
]


def _leaky_tools(root: Path) -> None:
    """A tool file holding keys in a description, a default and an enum."""
    schema = {
        "type": "object",
        "properties": {"key": {"type": "string", "default": OPENAI_KEY, "enum": ["a", AWS_KEY]}},
    }
    tool = {"name": "connect", "description": f"Connects with {JWT}.", "inputSchema": schema}
    (root / "tools.json").write_text(json.dumps([tool]))
    (root / "suite").mkdir()


CASES += [
    Case(
        f"secrets-in-lint-{fmt}",
        ("lint", "--no-config", "-f", fmt, "tools.json"),
        _leaky_tools,
        (0, 1),
        secrets=SECRETS,
    )
    for fmt in _formats("lint")
]
CASES += [
    Case(
        "secrets-in-fixtures",
        ("fixtures", "--no-config", "--tools", "tools.json", "-f", "json", "--check", "suite"),
        _leaky_tools,
        (0, 1),
        secrets=SECRETS,
    ),
]
CASES += [
    Case(
        "secrets-in-redact-check",
        ("redact", "--check", "trace.jsonl"),
        _secrets,
        (1,),
        secrets=SECRETS,
    ),
    Case(
        "secrets-redacted",
        ("redact", "trace.jsonl", "-o", "shared.jsonl"),
        _secrets,
        (0,),
        secrets=SECRETS,
        output="shared.jsonl",
        extra={"output_has_no_secret": True},
    ),
]


def _gzip_bomb(root: Path) -> None:
    """1 KB of gzip that unpacks to a line of 1 GB between two good calls (about 1,000:1)."""
    import zlib

    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # the gzip container
    parts = [packer.compress((chat('{"city": "Oslo"}') + "\n").encode())]
    parts.append(packer.compress(b'{"role": "assistant", "content": "'))
    chunk = b"x" * MB
    parts.extend(packer.compress(chunk) for _ in range(1024))
    parts.append(packer.compress(b'"}\n' + (chat('{"city": 7}', call_id="c2") + "\n").encode()))
    parts.append(packer.flush())
    (root / "trace.jsonl.gz").write_bytes(b"".join(parts))
    (root / "tools.json").write_text(tools())


def _zstd_window(root: Path) -> None:
    """A Zstandard frame whose header asks for a 2 GB window (a decoder that honoured it
    would allocate that much), holding one raw block of a good call."""
    body = (chat('{"city": "Oslo"}') + "\n").encode()
    header = b"\x28\xb5\x2f\xfd" + b"\x00" + bytes([(31 - 10) << 3])  # window 2**31
    block = ((len(body) << 3) | 1).to_bytes(3, "little")  # the last block, raw
    (root / "trace.jsonl.zst").write_bytes(header + block + body)
    (root / "tools.json").write_text(tools())


def _zstd_bomb(root: Path) -> None:
    """32 KB of Zstandard that unpacks to a line of 1 GB (run-length blocks of 128 KiB, 4
    bytes each) between two good calls."""

    def block(kind: int, size: int, last: bool = False) -> bytes:
        return (size << 3 | kind << 1 | int(last)).to_bytes(3, "little")

    head = (chat('{"city": "Oslo"}') + "\n").encode() + b'{"role": "assistant", "content": "'
    tail = b'"}\n' + (chat('{"city": 7}', call_id="c2") + "\n").encode()
    frame = [b"\x28\xb5\x2f\xfd\x00" + bytes([(17 - 10) << 3])]  # a window of 128 KiB
    frame.append(block(0, len(head)) + head)  # raw
    frame.extend(block(1, 1 << 17) + b"x" for _ in range(8192))  # run-length
    frame.append(block(0, len(tail), last=True) + tail)
    (root / "trace.jsonl.zst").write_bytes(b"".join(frame))
    (root / "tools.json").write_text(tools())


def _cut_gzip(root: Path) -> None:
    """A gzip trace cut short in its middle (a capture still being written, or copied
    half), whose calls carry a key."""
    import gzip

    lines = "".join(
        chat(json.dumps({"city": "Oslo", "token": OPENAI_KEY}), call_id=f"c{i}") + "\n"
        for i in range(2000)
    )
    packed = gzip.compress(lines.encode())
    (root / "trace.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    (root / "tools.json").write_text(tools())


CASES += [
    Case(
        "gzip-bomb",
        ("check", "--no-config", "--tools", "tools.json", "trace.jsonl.gz"),
        _gzip_bomb,
        (1,),
        max_mb=200,
        max_seconds=60,
    ),
    Case(
        "gzip-bomb-on-stdin",
        ("check", "--no-config", "--tools", "tools.json", "-"),
        _gzip_bomb,
        (1,),
        shell="{cmd} < trace.jsonl.gz",
        max_mb=200,
        max_seconds=60,
    ),
    Case(
        "zstd-bomb",
        ("check", "--no-config", "--tools", "tools.json", "trace.jsonl.zst"),
        _zstd_bomb,
        (1,),
        max_mb=200,
        max_seconds=60,
    ),
    Case(
        "zstd-window-of-2-gb",
        ("check", "--no-config", "--tools", "tools.json", "trace.jsonl.zst"),
        _zstd_window,
        (2,),
        error="trace.jsonl.zst",
        max_mb=200,
    ),
    Case(
        "gzip-cut-short",
        (
            "check",
            "--no-config",
            "--tools",
            "tools.json",
            "-f",
            "json",
            "-o",
            "r.json",
            "trace.jsonl.gz",
        ),
        _cut_gzip,
        (2,),
        error="trace.jsonl.gz",
        secrets=(OPENAI_KEY,),
    ),
]


def write(out: Path) -> None:
    """Write every case's inputs under ``out/<name>/`` and the list of cases."""
    manifest = []
    for case in CASES:
        root = out / case.name
        root.mkdir(parents=True, exist_ok=True)
        case.make(root)
        manifest.append(
            {
                "name": case.name,
                "args": list(case.args),
                "codes": list(case.codes),
                "error": case.error,
                "shell": case.shell,
            }
        )
    (out / "cases.json").write_text(json.dumps(manifest, indent=2) + "\n")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "hostile-corpus"))
