#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerates the seed corpora of fuzz_openai_mapping, fuzz_jsonscan and fuzz_token from
# tests/data (run from anywhere; writes tests/fuzz/corpus/<target>/seed-*). Crash reproducers
# (regression-*) and fuzz_sse's seeds are never touched.
import json
import pathlib
import re

root = pathlib.Path(__file__).resolve().parents[2]
data = root / "tests" / "data"
corpus = root / "tests" / "fuzz" / "corpus"


def write(target, name, payload):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
    (d / f"seed-{name}").write_bytes(payload)


def clear(target):
    d = corpus / target
    if d.exists():
        for f in d.glob("seed-*"):
            f.unlink()


for t in ("openai_mapping", "jsonscan", "token"):
    clear(t)

sse_files = sorted((data / "openai").glob("*.sse"))
responses = json.loads((data / "openai" / "response-objects.json").read_text())

# fuzz_openai_mapping: byte 0 = streamable | (cursor + 1) << 1, then the SSE stream.
for f in sse_files:
    body = f.read_bytes()
    write("openai_mapping", f.stem, bytes([0x01]) + body)            # streamable, no cursor
    write("openai_mapping", f.stem + "-cursor5", bytes([0x0C]) + body)  # not streamable, cursor 5
for i, case in enumerate(responses):
    obj = json.dumps(case["response"], separators=(",", ":")).encode()
    write("openai_mapping", f"object-{i}-{case['name']}", b"\x01data: " + obj + b"\n\n")
    ev = {"type": "response.completed", "sequence_number": 7, "response": case["response"]}
    write("openai_mapping", f"completed-{i}-{case['name']}",
          b"\x01event: response.completed\ndata: " + json.dumps(ev, separators=(",", ":")).encode() + b"\n\n")

# fuzz_jsonscan: every data payload of the SSE files and every Response object.
n = 0
for f in sse_files:
    for line in f.read_bytes().split(b"\n"):
        if line.startswith(b"data: ") and line[6:7] == b"{":
            write("jsonscan", f"{f.stem}-{n}", line[6:])
            n += 1
for i, case in enumerate(responses):
    write("jsonscan", f"response-{i}", json.dumps(case["response"]).encode())
for i, row in enumerate([b'{}', b'{"a":1}', b'{"a":-0.5e+10,"b":true,"c":false,"d":null}',
                         b'{"a":"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00"}',
                         b'{"a":[1,2,{"c":null}],"d":{"e":"f"}}', b'{"a":9223372036854775807}',
                         b'{"a":-9223372036854775808,"a":1}', b'"\\ud800x"', b'-12345']):
    write("jsonscan", f"row-{i}", row)

# fuzz_token: one object of each stored type, plus a store-shaped run row.
tokens = [
    {"remote_id": "resp_abc", "sequence": 41, "event_id": "ev-41", "streamable": True,
     "extra": {"starting_after": 41}},
    {"remote_id": "r", "sequence": 9223372036854775807, "streamable": False},
    {"remote_id": "r", "sequence": 1e300},
    {"kind": "rate_limited", "code": "rate_limit_exceeded", "message": "slow down", "retryable": True,
     "http_status": 429, "request_id": "req_1"},
    {"kind": "protocol", "message": "x", "http_status": -5},
    {"reason": "approval", "prompt": "Deploy?", "options": ["yes", "no"],
     "deadline": "2026-11-21T22:40:00.000Z", "callback_url": "https://example.invalid/cb",
     "raw": {"id": "x"}},
    {"id": "rs_1#s0", "kind": "reasoning", "title": "Reasoning", "text": "step", "at": "2026-11-21T22:40:00.000Z",
     "done": True},
    {"name": "prod", "backend": "openai", "base_url": "https://api.openai.com/v1", "auth": "api-key",
     "allow_insecure_http": False, "default_model": "gpt-5.4", "options": {"stall_timeout_ms": 1000}},
    [{"kind": "tool_call", "at": "2026-11-21T22:40:00+05:00"}, {"reason": "timer", "deadline": "bogus"}],
]
for i, t in enumerate(tokens):
    write("token", f"object-{i}", json.dumps(t).encode())
