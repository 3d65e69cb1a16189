"""Reads one MCP answer (a JSON body, or an SSE stream of them) for scripts/bench.sh --peers.

    python3 peer_answer.py tool OPERATION_ID < answer   prints the name of the tool that the
                                                       tools/list answer gives OPERATION_ID
    python3 peer_answer.py call < answer                 exits non-zero unless the tools/call
                                                       answer is a successful result that
                                                       carries the upstream's prompts
"""

import json
import re
import sys


def messages(text: str) -> list:
    text = text.strip()
    if text.startswith("{"):
        return [json.loads(text)]
    found = []
    for event in re.split(r"\r?\n\r?\n", text):
        data = [line[5:].lstrip() for line in event.splitlines() if line.startswith("data:")]
        if data and "".join(data).strip():
            found.append(json.loads("\n".join(data)))
    return found


def result(text: str) -> dict:
    for message in messages(text):
        if "id" in message and ("result" in message or "error" in message):
            if "error" in message:
                raise SystemExit(f"JSON-RPC error: {message['error']}")
            return message["result"]
    raise SystemExit(f"no JSON-RPC answer in: {text[:500]}")


def carries_prompts(value) -> bool:
    """True when VALUE is, or contains, the fixture nginx serves (first prompt: mailhandler)."""
    if isinstance(value, dict):
        prompts = value.get("prompts")
        if isinstance(prompts, list) and prompts and isinstance(prompts[0], dict):
            if prompts[0].get("topic") == "mailhandler":
                return True
        return any(carries_prompts(v) for v in value.values())
    if isinstance(value, list):
        return any(carries_prompts(v) for v in value)
    return False


def normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def main() -> None:
    text = sys.stdin.read()
    answer = result(text)
    if sys.argv[1] == "tool":
        wanted = normalise(sys.argv[2])
        names = [tool["name"] for tool in answer["tools"]]
        matching = [name for name in names if normalise(name) == wanted]
        if len(matching) != 1:
            raise SystemExit(f"no single tool for {sys.argv[2]} among {names}")
        print(matching[0])
    elif sys.argv[1] == "call":
        if answer.get("isError") is True:
            raise SystemExit(f"the tool call failed: {answer}")
        # Peers wrap the upstream's body differently (as it is, or with the HTTP status):
        # look for it anywhere in the structured content and in the text content.
        texts = [c.get("text", "") for c in answer.get("content", []) if c.get("type") == "text"]
        candidates = [answer.get("structuredContent")]
        for text_content in texts:
            try:
                candidates.append(json.loads(text_content))
            except ValueError:
                pass
        if not any(carries_prompts(c) for c in candidates):
            raise SystemExit(f"the upstream's body is not in the result: {answer}")
    else:
        raise SystemExit(f"unknown command {sys.argv[1]}")


if __name__ == "__main__":
    main()
