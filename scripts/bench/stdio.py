#!/usr/bin/env python3
"""tools/call over stdio for scripts/bench.sh.

Usage: stdio.py SECONDS WINDOW SERVER [ARGS...]

Starts SERVER with ARGS (a `--transport stdio` server), initializes a session (2025-11-25), then
for SECONDS keeps WINDOW `tools/call` requests of `synaplan_list_prompts` in flight (1: one at a
time) and prints one line like wrk's in mcp.lua: requests/s, p50 and p99 latency (microseconds),
requests, errors. A response that is not a successful tool result counts as an error. The
driver's own work (writing and parsing JSON lines in Python) is part of every figure.
"""

import json
import os
import subprocess
import sys
import time


def main():
    seconds = float(sys.argv[1])
    window = int(sys.argv[2])
    server = subprocess.Popen(
        sys.argv[3:],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    out = server.stdout
    buffered = b""

    def send(message):
        server.stdin.write(message)

    def read_line():
        nonlocal buffered
        while b"\n" not in buffered:
            chunk = os.read(out.fileno(), 1 << 16)
            if not chunk:
                raise SystemExit("the server closed its output")
            buffered += chunk
        line, buffered = buffered.split(b"\n", 1)
        return line

    def read_response():
        while True:
            message = json.loads(read_line())
            if "id" in message and ("result" in message or "error" in message):
                return message

    send(
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n'
    )
    read_response()
    send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    template = (
        '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":'
        '{"name":"synaplan_list_prompts","arguments":{"language":"en"}}}\n'
    )
    sent_at = {}
    latencies = []
    errors = 0
    next_id = 1
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        now = time.perf_counter()
        while len(sent_at) < window and now < deadline:
            sent_at[next_id] = time.perf_counter()
            send((template % next_id).encode())
            next_id += 1
        if not sent_at:
            break
        message = read_response()
        done = time.perf_counter()
        began = sent_at.pop(message["id"], None)
        if began is None:
            continue
        latencies.append(done - began)
        result = message.get("result")
        if result is None or result.get("isError") is True:
            errors += 1
    elapsed = time.perf_counter() - start
    server.stdin.close()
    server.wait(timeout=10)
    latencies.sort()

    def percentile(p):
        return int(latencies[min(len(latencies) - 1, int(len(latencies) * p / 100))] * 1e6)

    print(
        "BENCH rps=%.1f p50=%d p99=%d requests=%d errors=%d"
        % (len(latencies) / elapsed, percentile(50), percentile(99), len(latencies), errors)
    )


if __name__ == "__main__":
    main()
