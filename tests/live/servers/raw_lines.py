"""A stdio program that answers each line it reads with fixed bytes, to test that a proxy
forwards bytes unchanged: odd spacing, escapes, bytes that are not UTF-8, a line written in
two pieces, and a last line without a newline. Exits with code 3."""

from __future__ import annotations

import os
import sys
import time

ANSWERS = [
    b'{ "jsonrpc" : "2.0",  "id":1, "result": {"text": "caf\\u00e9 \xe2\x82\xac", "n": 1.50}}\r\n',
    b'{"jsonrpc":"2.0","id":2,"result":{"big":123456789012345678901234567890}}\n',
    b"\xff\xfe not UTF-8 at all\n",
]

for answer in ANSWERS:
    if not sys.stdin.buffer.readline():
        break
    os.write(1, answer)
if sys.stdin.buffer.readline():
    os.write(1, b'{"jsonrpc":"2.0",')  # a frame in two writes
    time.sleep(0.05)
    os.write(1, b'"id":4,"result":{}}\n')
os.write(1, b'{"jsonrpc":"2.0","method":"bye"}')  # no newline before exit
sys.exit(3)
