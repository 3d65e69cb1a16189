"""FastMCP's OpenAPI mode as a peer for scripts/bench.sh --peers.

    python fastmcp_server.py SPEC UPSTREAM_URL PORT

Serves every operation of SPEC (YAML or JSON) as a tool that calls UPSTREAM_URL, over
Streamable HTTP on 127.0.0.1:PORT/mcp: stateless, JSON responses (no SSE), no banner, no
access log, warnings only. Run with the interpreter of the venv that bench.sh sets up.
"""

import sys

import fastmcp
import yaml
from fastmcp import FastMCP

try:  # FastMCP 4 takes httpx2 clients; earlier releases take httpx ones
    import httpx2 as httpx
except ImportError:
    import httpx


def main() -> None:
    spec_path, upstream, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(spec_path, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    client = httpx.AsyncClient(base_url=upstream, timeout=30.0)
    server = FastMCP.from_openapi(openapi_spec=spec, client=client, name="synaplan")
    print(f"fastmcp {fastmcp.__version__}", file=sys.stderr, flush=True)
    server.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        stateless_http=True,
        json_response=True,
        show_banner=False,
        log_level="warning",
        uvicorn_config={"access_log": False},
    )


if __name__ == "__main__":
    main()
