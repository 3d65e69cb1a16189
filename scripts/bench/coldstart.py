"""Cold start of a server, for scripts/bench.sh: starts the command given as arguments and
prints the milliseconds from process start to the first 200 from GET /healthz, then to the
first successful stateless tools/list answer; stops the process. The URL base is BENCH_URL.
Standard library only; every request goes to the loopback address in BENCH_URL."""
import http.client
import json
import os
import subprocess
import sys
import time
import urllib.parse

base = urllib.parse.urlsplit(os.environ["BENCH_URL"])
assert base.hostname == "127.0.0.1", "loopback only"
LIST = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "tools/list",
    "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }},
})
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/list",
}


def request(method, path, body=None, headers=None):
    conn = http.client.HTTPConnection(base.hostname, base.port, timeout=2)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


start = time.monotonic()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    healthz = listed = None
    deadline = start + 10
    while time.monotonic() < deadline:
        try:
            if healthz is None:
                status, _ = request("GET", "/healthz")
                if status == 200:
                    healthz = time.monotonic() - start
            if healthz is not None:
                status, body = request("POST", "/mcp", LIST, HEADERS)
                if status == 200 and "tools" in json.loads(body).get("result", {}):
                    listed = time.monotonic() - start
                    break
        except (OSError, ValueError, http.client.HTTPException):
            time.sleep(0.001)
    if healthz is None or listed is None:
        sys.exit("the server did not answer within 10 s")
    print(f"{healthz * 1000:.1f} {listed * 1000:.1f}")
finally:
    process.terminate()
    process.wait()
